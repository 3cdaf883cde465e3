/**
 * Writes that cannot be redirected (issue 29.3): for each writer — save_npy, write_parquet's
 * parts, the search's save_to model files (and the folder it creates), exports, the desktop's
 * window state — a symlink
 * planted where the file will go (pointing at a file outside the allowed folder) and a dangling
 * one (pointing at a path outside that does not exist) are replaced, never written through: the
 * file outside keeps its bytes, the dangling target is not created, and the written file is the
 * one the writer meant (read back). Folders created at run time are checked when created: a
 * link planted for one is refused and nothing is created through it. Links are also planted at
 * the temporary names the writers used to use (`<file>.tmp-<pid>`, `<file>.<pid>.tmp`,
 * `<file>.tmp-<pid>-<ms>`, with the clock pinned so the millisecond is the one an attacker
 * guessed): the old writers wrote through those (writeFileSync on a predictable name, or on the
 * target itself).
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as tf from '@tensorflow/tfjs';
import { readNpy } from '../../common/npy';
import { loadWindowState, saveWindowState } from '../../main/desktop/window-state';
import { writeExportFile } from '../../main/store/transfer';
import { EXPORT_FORMAT } from '../../main/store/transfer-schema';
import { fileSystemIO } from '../../worker/kernels/tfjs/persist';
import { chain, runLocal } from '../helpers/local-run';
import { localTasks } from '../helpers/local-tasks';
import { tempDir } from './helpers';

const VICTIM = 'victim bytes: must stay as they are\n';
let allowed: string;
let outside: string;
let saved: string | undefined;

beforeAll(() => {
  saved = process.env.GPUFLOW_ALLOWED_DIRS;
});
afterAll(() => {
  if (saved === undefined) delete process.env.GPUFLOW_ALLOWED_DIRS;
  else process.env.GPUFLOW_ALLOWED_DIRS = saved;
});
beforeEach(() => {
  allowed = tempDir('gpuflow-allowed-');
  outside = tempDir('gpuflow-outside-');
  process.env.GPUFLOW_ALLOWED_DIRS = allowed;
  writeFileSync(path.join(outside, 'victim'), VICTIM);
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(allowed, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

/** Plants `at` -> outside/victim (existing) or outside/<name> (dangling); returns the link's target. */
function plant(at: string, dangling: boolean): string {
  const target = path.join(outside, dangling ? `never-${path.basename(at)}` : 'victim');
  symlinkSync(target, at);
  return target;
}

/** The millisecond an attacker guesses for save_npy's old `<file>.tmp-<pid>-<Date.now()>` name. */
const GUESSED_MS = 1_790_000_000_000;

/** Links at the predictable temporary names the old writers used for `file`, all to the victim. */
function plantOldTempNames(file: string, dangling: boolean): void {
  const names = [`${file}.tmp-${process.pid}`, `${file}.${process.pid}.tmp`, `${file}.tmp-${process.pid}-${GUESSED_MS}`];
  for (const n of names) plant(n, dangling);
}

/** Removes what plantOldTempNames made, so a folder's listing shows only what the writer wrote. */
function removeOldTempNames(dir: string): void {
  for (const n of readdirSync(dir)) if (/\.tmp(-\d+){1,2}$|\.\d+\.tmp$/.test(n)) rmSync(path.join(dir, n));
}

function expectOutsideUntouched(target: string, dangling: boolean): void {
  if (dangling) expect(existsSync(target)).toBe(false);
  else expect(readFileSync(target, 'utf8')).toBe(VICTIM);
  // Nothing else appeared outside (no temporary file either).
  expect(readdirSync(outside)).toEqual(['victim']);
}

const kinds: Array<[string, boolean]> = [
  ['a planted link', false],
  ['a dangling link', true],
];

describe('writes through planted links', () => {
  it.each(kinds)('save_npy replaces %s planted at its target after validation instead of writing through it', async (_k, dangling) => {
    const file = path.join(allowed, 'out.npy');
    // Validation refuses a link that is already there (the path policy); one planted between
    // validation and the write is the case left to the writer: the save task runs after it.
    const tasks = await localTasks(chain(['a', 'arange', { start: 0, stop: 6, step: 1, chunks: 4 }], ['s', 'save_npy', { path: file }]));
    const target = plant(file, dangling);
    plantOldTempNames(file, dangling);
    vi.spyOn(Date, 'now').mockReturnValue(GUESSED_MS);
    await tasks.results();
    vi.restoreAllMocks();
    removeOldTempNames(allowed);
    expectOutsideUntouched(target, dangling);
    expect(lstatSync(file).isFile()).toBe(true);
    expect(Array.from(readNpy(new Uint8Array(readFileSync(file))).data as Float64Array)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(readdirSync(allowed)).toEqual(['out.npy']);
  });

  it.each(kinds)('write_parquet replaces %s at a part file instead of writing through it', async (_k, dangling) => {
    const dir = path.join(allowed, 'pq');
    mkdirSync(dir);
    const part = path.join(dir, 'part.1.parquet');
    const target = plant(part, dangling);
    plantOldTempNames(part, dangling);
    const w = await runLocal(chain(['ts', 'timeseries', { partitions: 2, rows_per_partition: 20, seed: 3 }], ['w', 'write_parquet', { path: dir }, 'df']));
    expect(w.w).toEqual({ kind: 'json', value: [0, 1].map((i) => ({ path: path.join(dir, `part.${i}.parquet`), rows: 20 })) });
    expectOutsideUntouched(target, dangling);
    expect(lstatSync(part).isFile()).toBe(true);
    expect(readFileSync(part).subarray(0, 4).toString('latin1')).toBe('PAR1');
    removeOldTempNames(dir);
    expect(readdirSync(dir).sort()).toEqual(['part.0.parquet', 'part.1.parquet']);
  });

  /** What a search's save_to does with the best model: fileSystemIO(dir).save (persist.ts). */
  const saveModel = async (dir: string, a: tf.io.ModelArtifacts): Promise<void> => {
    const io = fileSystemIO(dir);
    if (!io.save) throw new Error('fileSystemIO has no save');
    await io.save(a);
  };
  const artifacts = (): tf.io.ModelArtifacts => ({ modelTopology: { class_name: 'Sequential' }, weightSpecs: [{ name: 'w', shape: [2], dtype: 'float32' }], weightData: new Float32Array([1.5, 2.5]).buffer });

  it.each(kinds)("search save_to's model files replace %s instead of writing through it", async (_k, dangling) => {
    const dir = path.join(allowed, 'best');
    mkdirSync(dir);
    const weights = path.join(dir, 'weights.bin');
    const target = plant(weights, dangling);
    const json = path.join(dir, 'model.json');
    const target2 = plant(json, dangling);
    plantOldTempNames(weights, dangling);
    plantOldTempNames(json, dangling);
    await saveModel(dir, artifacts());
    removeOldTempNames(dir);
    expectOutsideUntouched(target, dangling);
    expectOutsideUntouched(target2, dangling);
    expect(Array.from(new Float32Array(new Uint8Array(readFileSync(weights)).buffer))).toEqual([1.5, 2.5]);
    expect(JSON.parse(readFileSync(json, 'utf8')).modelTopology).toEqual({ class_name: 'Sequential' });
    expect(readdirSync(dir).sort()).toEqual(['model.json', 'weights.bin']);
  });

  it.each(kinds)('a save_to folder created at run time is refused when %s stands in its place', async (_k, dangling) => {
    // The folder (and its parent) do not exist at compile; when the save runs, a link is found there.
    const parent = path.join(allowed, 'models');
    const outsideDir = path.join(outside, dangling ? 'never-dir' : 'dir');
    if (!dangling) mkdirSync(outsideDir);
    symlinkSync(outsideDir, parent);
    await expect(saveModel(path.join(parent, 'best'), artifacts())).rejects.toThrow(/models now resolves to .*a link was put in its place|cannot write in .*models: ENOENT/);
    expect(readdirSync(outside).sort()).toEqual(dangling ? ['victim'] : ['dir', 'victim']);
    if (!dangling) expect(readdirSync(outsideDir)).toEqual([]);
  });

  it.each(kinds)('an export replaces %s at its target instead of writing through it', (_k, dangling) => {
    const file = path.join(allowed, 'runs.json');
    const target = plant(file, dangling);
    plantOldTempNames(file, dangling);
    writeExportFile(file, { format: EXPORT_FORMAT, exported: 1, workflows: [], runs: [] });
    expectOutsideUntouched(target, dangling);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ format: EXPORT_FORMAT, exported: 1, workflows: [], runs: [] });
    removeOldTempNames(allowed);
    expect(readdirSync(allowed)).toEqual(['runs.json']);
  });

  it.each(kinds)('the window state replaces %s at its file instead of writing through it', (_k, dangling) => {
    const file = path.join(allowed, 'window-state.json');
    const target = plant(file, dangling);
    saveWindowState(file, { x: 10, y: 20, width: 1200, height: 800 }, false);
    expectOutsideUntouched(target, dangling);
    expect(loadWindowState(file)).toEqual({ x: 10, y: 20, width: 1200, height: 800, maximized: false });
    expect(readdirSync(allowed)).toEqual(['window-state.json']);
  });
});
