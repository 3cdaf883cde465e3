/**
 * The training rows of a worker's trials kept on the GPU between trials: on gpuflow-cuda a
 * trial's scaled features (uploaded raw, scaled on the device: deviceScaledFeatures) and its
 * targets are device tensors, and the next trial over the same data (every trial of a search on
 * this worker) takes them from here instead of uploading and scaling them again (48 000 × 784
 * floats, 150 MB, for the MNIST-shaped example).
 *
 * Keyed by the rows' identity, the scaler and the target form, so two trials share tensors only
 * when they would have built equal ones. Synthetic rows are a pure function of their DataSpec, so
 * the spec names them (nameSyntheticRows); other rows (a table's) are named by a SHA-256 of their
 * bytes, computed once per Dataset object: at the example's size that pass took 84 ms of a GPU
 * worker's first trial here (docs/tuning.md), the spec's name none. Bounded: past GPUFLOW_TUNING_DEVICE_DATA_MB (default 4096) the least recently
 * used entries not in use are freed; all are freed when the worker has trained nothing on the
 * GPU for IDLE_FREE_MS (a run's end, as a pooled worker sees it) and by clearDeviceData().
 */
import * as tf from '@tensorflow/tfjs';
import { createHash } from 'node:crypto';
import { traceStart } from '../../../../common/start-trace';
import type { DataSpec } from '../../../../common/tuning/data-spec';
import type { Dataset } from '../datasets';
import type { Scaler } from '../scaling';
import { SCALE_COLUMNS } from './kernels';

export interface TrainingTensors {
  x: tf.Tensor;
  y: tf.Tensor;
  /** The trial is done with them (a cached pair stays; an uncached one is disposed). */
  release(): void;
}

interface Entry {
  x: tf.Tensor;
  y: tf.Tensor;
  bytes: number;
  inUse: number;
  lastUsed: number;
}

export const IDLE_FREE_MS = 30_000;
const entries = new Map<string, Entry>();
const digests = new WeakMap<Dataset, string>();
const names = new WeakMap<Dataset, string>();
const stats = { hits: 0, misses: 0, evicted: 0 };
let clock = 0;
let idleTimer: ReturnType<typeof setTimeout> | undefined;

function boundBytes(): number {
  const mb = Number(process.env.GPUFLOW_TUNING_DEVICE_DATA_MB ?? 4096);
  if (!Number.isFinite(mb) || mb < 0) throw new RangeError(`GPUFLOW_TUNING_DEVICE_DATA_MB must be a number of MiB >= 0, got '${process.env.GPUFLOW_TUNING_DEVICE_DATA_MB}'`);
  return mb * 1024 * 1024;
}

/** SHA-256 over the dataset's shape, rows and targets (once per Dataset object). */
export function datasetDigest(d: Dataset): string {
  let s = digests.get(d);
  if (!s) {
    const h = createHash('sha256');
    h.update(JSON.stringify([d.task, d.nRows, d.nFeatures, d.classes]));
    h.update(new Uint8Array(d.x.buffer, d.x.byteOffset, d.x.byteLength));
    h.update(new Uint8Array(d.y.buffer, d.y.byteOffset, d.y.byteLength));
    s = h.digest('hex');
    digests.set(d, s);
  }
  return s;
}

/**
 * Names a trial data set's training rows by the DataSpec they were built from when that spec
 * alone determines them (a synthetic source: seeded generator and seeded split); a table source's
 * rows depend on the table, so they keep their digest.
 */
export function nameSyntheticRows(spec: DataSpec, train: Dataset): void {
  if (spec.source.kind !== 'table') names.set(train, `spec:${JSON.stringify(spec)}`);
}

/** The rows' part of the cache key: their spec's name, else their digest. */
export function rowsKey(d: Dataset): string {
  return names.get(d) ?? `sha256:${datasetDigest(d)}`;
}

/**
 * The rows' features standardised on the device: uploaded raw and scaled there (SCALE_COLUMNS,
 * the host scaleX's bytes), so the host makes no scaled copy of 150 MB first.
 */
export function deviceScaledFeatures(s: Scaler, d: Dataset): tf.Tensor {
  return tf.tidy(() => tf.engine().runKernel(SCALE_COLUMNS, { x: tf.tensor2d(d.x, [d.nRows, d.nFeatures]) }, { mean: s.xMean, std: s.xStd }) as tf.Tensor);
}

function used(): number {
  let n = 0;
  for (const e of entries.values()) n += e.bytes;
  return n;
}

function evictTo(limit: number): void {
  const idle = [...entries].filter(([, e]) => e.inUse === 0).sort((a, b) => a[1].lastUsed - b[1].lastUsed);
  for (const [key, e] of idle) {
    if (used() <= limit) return;
    tf.dispose([e.x, e.y]);
    entries.delete(key);
    stats.evicted++;
  }
}

function armIdleFree(): void {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    if ([...entries.values()].every((e) => e.inUse === 0)) clearDeviceData();
  }, IDLE_FREE_MS);
  idleTimer.unref?.();
}

/**
 * The trial's training tensors for `train` under `form` (the scaler and target form, as JSON):
 * from the cache, or made by `make` and cached when they fit the bound.
 */
export function trainingTensors(train: Dataset, form: string, make: () => { x: tf.Tensor; y: tf.Tensor }): TrainingTensors {
  const key = `${rowsKey(train)}:${form}`;
  let e = entries.get(key);
  if (e) stats.hits++;
  else {
    stats.misses++;
    // Scaling and upload follow (the start-up trace shows them in a search run's fixed part,
    // docs/tuning.md).
    traceStart('worker-device-rows-start');
    const made = make();
    traceStart('worker-device-rows-made');
    const bytes = (made.x.size + made.y.size) * 4;
    const limit = boundBytes();
    if (bytes > limit) return { ...made, release: () => tf.dispose([made.x, made.y]) };
    evictTo(limit - bytes);
    e = { x: tf.keep(made.x), y: tf.keep(made.y), bytes, inUse: 0, lastUsed: 0 };
    entries.set(key, e);
  }
  const entry = e;
  entry.inUse++;
  entry.lastUsed = ++clock;
  let released = false;
  return {
    x: entry.x,
    y: entry.y,
    release: () => {
      if (released) return;
      released = true;
      entry.inUse--;
      armIdleFree();
    },
  };
}

/** Frees every cached tensor not in use (the idle timer, a test, a worker going away). */
export function clearDeviceData(): void {
  for (const [key, e] of entries) {
    if (e.inUse > 0) continue;
    tf.dispose([e.x, e.y]);
    entries.delete(key);
  }
}

/** Cache figures for the trial record and the bench. */
export function deviceDataStats(): { entries: number; bytes: number; hits: number; misses: number; evicted: number } {
  return { entries: entries.size, bytes: used(), ...stats };
}
