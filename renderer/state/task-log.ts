/**
 * The task stream's own channel (kept out of the zustand stores so the graph does not re-render on
 * every event): every task, transfer and error rectangle of the run on show, in growable typed
 * arrays, with one lane per worker. Listeners are told a version number changed; the canvas
 * redraws at most once per animation frame. Nothing is ever dropped: the whole history stays.
 */
import type { EngineEvent } from '../../common/events';
import type { StoredEvent } from '../../common/store-types';
import { compareLanes } from '../logic/lane-order';
import { OpColors } from '../logic/op-colors';
import { Versioned } from './versioned';

export const KIND_TASK = 0;
export const KIND_TRANSFER = 1;
export const KIND_ERROR = 2;

/**
 * A task that started and has not ended: drawn from its start to now, growing, until its 'task'
 * (or error, or any other state) event replaces it. `progress` is its latest report, e.g. a
 * tuning trial's "trial 3 · epoch 4 of 10".
 */
export interface RunningTask {
  lane: number;
  start: number;
  node: string;
  progress: string;
}

export interface Lane {
  id: string;
  label: string;
  virtual: boolean;
}

export class TaskLog extends Versioned {
  lanes: Lane[] = [];
  private laneOf = new Map<string, number>();
  /** Per lane, the indices of its items (for hit testing and per-lane counts). */
  laneItems: number[][] = [];
  ops: string[] = [];
  private opOf = new Map<string, number>();
  n = 0;
  start = new Float64Array(1024);
  end = new Float64Array(1024);
  lane = new Int32Array(1024);
  op = new Int32Array(1024);
  kind = new Uint8Array(1024);
  bytes = new Float64Array(1024);
  keys: string[] = [];
  nodes: string[] = [];
  backends: string[] = [];
  /** Tasks running now, by key (from 'task-state' events to 'running'). */
  running = new Map<string, RunningTask>();
  /** The last op seen per node: a running task of that node takes its colour. */
  opOfNode = new Map<string, number>();
  /** Stable colours per op for this log's run. */
  readonly colors = new OpColors();
  private order: number[] | null = null;
  /** Earliest start seen: the time axis starts here. */
  t0 = Infinity;
  tMax = -Infinity;

  clear(keepLanes = true) {
    this.n = 0;
    this.keys = [];
    this.nodes = [];
    this.backends = [];
    this.t0 = Infinity;
    this.tMax = -Infinity;
    this.laneItems = this.laneItems.map(() => []);
    this.running.clear();
    this.opOfNode.clear();
    this.colors.clear();
    if (!keepLanes) {
      this.lanes = [];
      this.laneOf.clear();
      this.laneItems = [];
      this.order = null;
    }
    this.changed();
  }

  ensureLane(id: string, label?: string, virtual?: boolean): number {
    let i = this.laneOf.get(id);
    if (i === undefined) {
      i = this.lanes.length;
      this.lanes.push({ id, label: label ?? id, virtual: virtual ?? false });
      this.laneOf.set(id, i);
      this.laneItems.push([]);
      this.order = null;
    } else if (label !== undefined) {
      this.lanes[i] = { id, label, virtual: virtual ?? this.lanes[i].virtual };
    }
    return i;
  }

  /** Lane indices in display order: by worker kind, then index (logic/lane-order.ts). */
  rows(): number[] {
    if (!this.order) this.order = this.lanes.map((_, i) => i).sort((a, b) => compareLanes(this.lanes[a].id, this.lanes[b].id));
    return this.order;
  }

  /** The latest end, counting running tasks as ending at `now` when it is given. */
  endAt(now: number | null): number {
    let t = this.tMax;
    if (now !== null) for (const r of this.running.values()) t = Math.max(t, now, r.start);
    return t;
  }

  private grow() {
    const cap = this.start.length * 2;
    const g = <T extends Float64Array | Int32Array | Uint8Array>(a: T, C: new (n: number) => T): T => {
      const b = new C(cap);
      b.set(a);
      return b;
    };
    this.start = g(this.start, Float64Array);
    this.end = g(this.end, Float64Array);
    this.lane = g(this.lane, Int32Array);
    this.op = g(this.op, Int32Array);
    this.kind = g(this.kind, Uint8Array);
    this.bytes = g(this.bytes, Float64Array);
  }

  private push(laneId: string, kind: number, op: string, start: number, end: number, bytes: number, key: string, node: string, backend: string) {
    if (this.n === this.start.length) this.grow();
    const i = this.n++;
    const l = this.ensureLane(laneId);
    let o = this.opOf.get(op);
    if (o === undefined) {
      o = this.ops.length;
      this.ops.push(op);
      this.opOf.set(op, o);
    }
    this.start[i] = start;
    this.end[i] = Math.max(end, start);
    this.lane[i] = l;
    this.op[i] = o;
    this.kind[i] = kind;
    this.bytes[i] = bytes;
    this.keys[i] = key;
    this.nodes[i] = node;
    this.backends[i] = backend;
    this.laneItems[l].push(i);
    if (kind === 0 && node) this.opOfNode.set(node, o);
    if (start < this.t0) this.t0 = start;
    if (end > this.tMax) this.tMax = end;
  }

  /** Adds live events (one notification per batch). */
  addEvents(events: EngineEvent[]) {
    let touched = false;
    for (const e of events) {
      if (e.type === 'task-state') {
        if (e.to === 'running' && e.worker !== undefined) {
          const l = this.ensureLane(e.worker);
          if (Number.isFinite(e.t) && e.t < this.t0) this.t0 = e.t;
          this.running.set(e.key, { lane: l, start: e.t, node: e.node, progress: '' });
        } else if (!this.running.delete(e.key)) continue;
      } else if (e.type === 'task-progress') {
        const r = this.running.get(e.key);
        if (!r) continue;
        r.progress = progressLabel(e.payload);
      } else if (e.type === 'task') {
        this.running.delete(e.key);
        this.push(e.worker, KIND_TASK, e.op, e.start, e.end, e.bytes, e.key, e.node, e.backend);
      } else if (e.type === 'transfer') this.push(e.to, KIND_TRANSFER, 'transfer', e.start, e.end, e.bytes, e.key, '', `${e.from} → ${e.to}`);
      else if (e.type === 'task-error') {
        this.running.delete(e.key);
        this.push(e.worker, KIND_ERROR, 'error', e.t, e.t, 0, e.key, e.node, e.message);
      }
      else if (e.type === 'worker') this.ensureLane(e.worker, e.label, e.kind === 'virtual-gpu');
      else continue;
      touched = true;
    }
    if (touched) this.changed();
  }

  /**
   * Loads a stored run's events (times relative to its start). Stored task keys carry the node id
   * before the first '/', '-' or ':' only by convention, so nodes are taken from `nodeOfKey`.
   */
  loadStored(events: StoredEvent[], lanes: Lane[], nodeOfKey: (key: string) => string) {
    this.clear(false);
    for (const l of lanes) this.ensureLane(l.id, l.label, l.virtual);
    for (const e of events) {
      const worker = e.worker ?? '?';
      const start = e.t;
      const end = e.t + (e.ms ?? 0);
      const key = e.key ?? '';
      if (e.type === 'transfer') this.push(worker, KIND_TRANSFER, 'transfer', start, end, e.bytes ?? 0, key, '', '');
      else if (e.type === 'error') this.push(worker, KIND_ERROR, 'error', start, start, 0, key, e.op ?? '', '');
      else this.push(worker, KIND_TASK, e.op ?? '?', start, end, e.bytes ?? 0, key, nodeOfKey(key), e.backend ?? '');
    }
    this.changed();
  }

  /** Items per lane, by lane id. */
  countsByLane(): Record<string, number> {
    const out: Record<string, number> = {};
    this.lanes.forEach((l, i) => (out[l.id] = this.laneItems[i].length));
    return out;
  }
}

/** A running task's latest report in words: "trial 3 · epoch 4 of 10", or "epoch 4", or "". */
export function progressLabel(p: Record<string, unknown>): string {
  const parts: string[] = [];
  if (typeof p.trial === 'string' || typeof p.trial === 'number') parts.push(`trial ${p.trial}`);
  if (typeof p.epoch === 'number') parts.push(typeof p.epochs === 'number' ? `epoch ${p.epoch} of ${p.epochs}` : `epoch ${p.epoch}`);
  return parts.join(' · ');
}
