/**
 * Task events: compact rows, at most `cap` per run. Every event, stored or not, is also added to
 * its run's per-(op, worker) aggregates, so a run of millions of tasks still has its totals while
 * the table stays small. Appends are batched: one IMMEDIATE transaction per batch (taking the write
 * lock up front, so a second writing process waits on busy_timeout instead of failing).
 */
import type { Statement } from 'better-sqlite3';
import type { EventAggregate, EventInput, StoredEvent } from '../../common/store-types';
import type { Db } from './db';
import { StoreError } from './errors';

/** Default per-run cap on stored event rows. */
export const DEFAULT_EVENT_CAP = 200_000;

function finiteOrNull(x: number | null | undefined): number | null {
  return typeof x === 'number' && Number.isFinite(x) ? x : null;
}

export class EventRepo {
  private readonly counters: Statement;
  private readonly insert: Statement;
  private readonly upsertAggregate: Statement;
  private readonly bumpCounters: Statement;
  private readonly listStmt: Statement;
  private readonly aggregatesStmt: Statement;
  private readonly appendBatches: (batches: Iterable<[number, readonly EventInput[]]>) => void;

  constructor(
    private readonly db: Db,
    private readonly path: string,
    readonly cap: number = DEFAULT_EVENT_CAP,
  ) {
    if (!Number.isInteger(cap) || cap < 0) throw new RangeError(`event cap must be a non-negative integer, got ${cap}`);
    this.counters = db.prepare('SELECT events_total, events_stored FROM runs WHERE id = ?');
    this.insert = db.prepare(`INSERT INTO events (run_id, seq, t, type, key, worker, op, ms, bytes, backend)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.upsertAggregate = db.prepare(`INSERT INTO event_aggregates (run_id, op, worker, events, tasks, ms_total, ms_max, bytes_total)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT(run_id, op, worker) DO UPDATE SET
        events = events + excluded.events, tasks = tasks + excluded.tasks,
        ms_total = ms_total + excluded.ms_total, ms_max = MAX(ms_max, excluded.ms_max),
        bytes_total = bytes_total + excluded.bytes_total`);
    this.bumpCounters = db.prepare('UPDATE runs SET events_total = events_total + ?, events_stored = events_stored + ? WHERE id = ?');
    this.listStmt = db.prepare(`SELECT seq, t, type, key, worker, op, ms, bytes, backend FROM events
      WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?`);
    this.aggregatesStmt = db.prepare(`SELECT op, worker, events, tasks, ms_total AS msTotal, ms_max AS msMax, bytes_total AS bytesTotal
      FROM event_aggregates WHERE run_id = ? ORDER BY op, worker`);
    const tx = db.transaction((batches: Iterable<[number, readonly EventInput[]]>) => {
      for (const [runId, events] of batches) this.appendOne(runId, events);
    });
    this.appendBatches = (batches) => tx.immediate(batches);
  }

  /** Appends events of several runs in one transaction. */
  appendMany(batches: Iterable<[number, readonly EventInput[]]>): void {
    this.appendBatches(batches);
  }

  append(runId: number, events: readonly EventInput[]): void {
    this.appendBatches([[runId, events]]);
  }

  private appendOne(runId: number, events: readonly EventInput[]): void {
    if (events.length === 0) return;
    const row = this.counters.get(runId) as { events_total: number; events_stored: number } | undefined;
    if (!row) throw new StoreError('not-found', this.path, `Cannot store events of run ${runId}: no such run in ${this.path}.`);
    const room = Math.max(0, this.cap - row.events_stored);
    const keep = Math.min(room, events.length);
    const aggregates = new Map<string, EventAggregate>();
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      const ms = finiteOrNull(e.ms);
      const bytes = finiteOrNull(e.bytes);
      if (i < keep) {
        this.insert.run(
          runId,
          row.events_total + i,
          e.t,
          e.type,
          e.key ?? null,
          e.worker ?? null,
          e.op ?? null,
          ms,
          bytes === null ? null : Math.round(bytes),
          e.backend ?? null,
        );
      }
      const op = e.op ?? '';
      const worker = e.worker ?? '';
      const k = `${op}\u0000${worker}`;
      let a = aggregates.get(k);
      if (!a) aggregates.set(k, (a = { op, worker, events: 0, tasks: 0, msTotal: 0, msMax: 0, bytesTotal: 0 }));
      a.events++;
      if (ms !== null) {
        a.tasks++;
        a.msTotal += ms;
        a.msMax = Math.max(a.msMax, ms);
      }
      if (bytes !== null) a.bytesTotal += Math.round(bytes);
    }
    for (const a of aggregates.values()) {
      this.upsertAggregate.run(runId, a.op, a.worker, a.events, a.tasks, a.msTotal, a.msMax, a.bytesTotal);
    }
    this.bumpCounters.run(events.length, keep, runId);
  }

  /** Adds imported aggregates to run `runId` (its event rows were not exported). */
  importAggregates(runId: number, aggregates: readonly EventAggregate[]): void {
    let total = 0;
    for (const a of aggregates) {
      this.upsertAggregate.run(runId, a.op, a.worker, a.events, a.tasks, a.msTotal, a.msMax, a.bytesTotal);
      total += a.events;
    }
    this.bumpCounters.run(total, 0, runId);
  }

  /** Stored events of a run in order, after `afterSeq` (exclusive), at most `limit`. */
  list(runId: number, options: { afterSeq?: number; limit?: number } = {}): StoredEvent[] {
    return this.listStmt.all(runId, options.afterSeq ?? -1, options.limit ?? this.cap) as StoredEvent[];
  }

  aggregates(runId: number): EventAggregate[] {
    return this.aggregatesStmt.all(runId) as EventAggregate[];
  }
}
