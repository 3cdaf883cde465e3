/**
 * The one API every front end uses (CLI, serve's HTTP/WebSocket, Electron IPC): validate and run
 * workflows, stream events, and read history from the store. It owns the glue between the engine
 * and the store: a run's workflow version, its record, its events (buffered writer) and its
 * result digest.
 */
import type { EngineEvent } from '../../common/events';
import type { RunResult } from '../../common/results';
import type { WorkflowDoc } from '../../common/workflow';
import { resultDigest } from '../../common/digest';
import type { JsonValue } from '../../common/store-types';
import type { Engine, RunHandle } from '../engine/engine';
import { WorkflowErrors } from '../engine/errors';
import { catalog } from '../engine/ops/registry';
import { validateWorkflow, type ValidWorkflow } from '../engine/validate';
import { localMachineInfo, machineFingerprint, type Store } from '../store';
import type { EventWriter } from '../store/event-writer';

export interface StartedRun {
  runId: string;
  /** The run's id in the store (history, replay), when a store is open. */
  storeId: number | null;
  handle: RunHandle;
  /** Resolves with the result once the store has its final record. */
  done: Promise<RunResult & { digest: string; storeId: number | null }>;
}

export interface RunOptions {
  params?: Record<string, number | string | boolean>;
  replayOf?: number;
}

/** The part of a result kept in the store: array data is left out, summaries kept. */
export function storedResults(r: RunResult): JsonValue {
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(r.results)) {
    if (v.kind === 'array') out[k] = { kind: 'array', dtype: v.dtype, shape: v.shape, summary: (v.summary ?? null) as unknown as JsonValue };
    else out[k] = v as unknown as JsonValue;
  }
  return out;
}

/** The values a digest covers: every scalar and every array element returned (or its summary). */
export function digestOf(r: RunResult): string {
  const vals: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r.results)) {
    if (v.kind === 'scalar') vals[k] = v.value;
    else if (v.kind === 'array') vals[k] = { shape: v.shape, data: v.data ?? null, summary: v.data ? null : v.summary };
    else vals[k] = v.value;
  }
  return resultDigest(vals);
}

function seedsOf(doc: WorkflowDoc, wf: ValidWorkflow): JsonValue {
  const seeds: Record<string, JsonValue> = {};
  for (const n of doc.nodes) {
    const p = wf.params.get(n.id);
    if (p && typeof p.seed === 'number') seeds[n.id] = p.seed;
  }
  return seeds;
}

export class GpuflowService {
  private writer: EventWriter | null;
  private readonly machine: string;

  constructor(
    readonly engine: Engine,
    readonly store: Store | null,
  ) {
    this.writer = store ? store.createEventWriter({ flushMs: 250 }) : null;
    this.machine = machineFingerprint(localMachineInfo(engine.discovery.gpus.map((g) => ({ name: g.name, memoryMiB: g.memoryTotalMiB }))));
  }

  catalog() {
    return catalog();
  }

  /** Validates without running; errors come back as "path (node 'id'): detail" lines. */
  validate(doc: unknown, params: RunOptions['params'] = {}): { ok: true; tasks: number } | { ok: false; errors: string[] } {
    try {
      const wf = validateWorkflow(doc, params);
      const compiled = this.engine.compile(wf);
      return { ok: true, tasks: compiled.tasks.size };
    } catch (e) {
      if (e instanceof WorkflowErrors) return { ok: false, errors: e.errors.map((x) => x.message) };
      return { ok: false, errors: [e instanceof Error ? e.message : String(e)] };
    }
  }

  /** Validates, compiles and starts a run. Throws WorkflowErrors / WorkflowError for bad documents. */
  run(doc: unknown, opts: RunOptions = {}): StartedRun {
    const wf = validateWorkflow(doc, opts.params ?? {});
    let storeId: number | null = null;
    let uuid: string | undefined;
    const workers = this.engine.pool.ready.map((w) => ({ id: w.id, kind: w.config.kind, label: w.config.label, backends: w.backends.filter((b) => b.available).map((b) => b.name) }));
    // Compile before the store learns of the run, so a refused workflow leaves no record.
    this.engine.compile(wf);
    if (this.store) {
      const version = this.store.saveWorkflowVersion(wf.doc);
      const rec = this.store.startRun({
        workflowHash: version.hash,
        params: (wf.doc.params ?? {}) as Record<string, JsonValue>,
        seeds: seedsOf(wf.doc, wf),
        devices: workers as unknown as JsonValue,
        machine: this.machine,
        replayOf: opts.replayOf,
      });
      storeId = rec.id;
      uuid = rec.uuid;
    }
    const handle = this.engine.run(wf, uuid);
    const t0 = Date.now();
    const unsubscribe = this.writer && storeId !== null ? this.recordEvents(handle.runId, storeId, t0) : () => undefined;
    const done = handle.result.then((r) => {
      unsubscribe();
      const digest = digestOf(r);
      if (this.store && storeId !== null) {
        this.store.finishRun(storeId, {
          status: r.status === 'finished' ? 'done' : r.status,
          resultDigest: r.status === 'finished' ? digest : null,
          results: storedResults(r),
          error: r.error ?? null,
        });
      }
      return { ...r, digest, storeId };
    });
    return { runId: handle.runId, storeId, handle, done };
  }

  private recordEvents(runId: string, storeId: number, t0: number): () => void {
    const writer = this.writer!;
    return this.engine.bus.subscribe((e: EngineEvent) => {
      if (!('runId' in e) || e.runId !== runId) return;
      if (e.type === 'task') writer.push(storeId, { t: e.start - t0, type: 'task', key: e.key, worker: e.worker, op: e.op, ms: e.end - e.start, bytes: e.bytes, backend: e.backend });
      else if (e.type === 'transfer') writer.push(storeId, { t: e.start - t0, type: 'transfer', key: e.key, worker: e.to, op: 'transfer', ms: e.end - e.start, bytes: e.bytes });
      else if (e.type === 'task-error') writer.push(storeId, { t: e.t - t0, type: 'error', key: e.key, worker: e.worker, op: e.node });
    });
  }

  cancel(runId: string): boolean {
    return this.engine.cancel(runId);
  }

  subscribe(fn: (e: EngineEvent) => void): () => void {
    return this.engine.bus.subscribe(fn);
  }

  async close(): Promise<void> {
    await this.engine.shutdown();
    this.writer?.close();
    this.writer = null;
    this.store?.close();
  }
}
