/**
 * The store: one object over one database file, used by the app, `serve` and the CLI alike.
 * Synchronous (better-sqlite3): every call is a short transaction; the only high-rate writes,
 * task events, go through an EventWriter that batches them off the scheduler's hot path.
 * SQLite and filesystem failures surface as StoreErrors (errors.ts) naming the file.
 */
import type {
  EventAggregate,
  EventInput,
  JsonValue,
  RunComparison,
  RunFilter,
  RunRecord,
  RunSummary,
  Slowdown,
  StoredEvent,
  WorkflowVersionRecord,
  WorkflowVersionSummary,
  BenchmarkRecord,
} from '../../common/store-types';
import type { WorkflowDoc } from '../../common/workflow';
import { findSlowdowns, SLOWDOWN_THRESHOLD } from './bench-stats';
import { BenchmarkRepo, type BenchmarkInput } from './benchmarks';
import { compareRuns, type RunDetail } from './compare';
import { openDatabase, type Db } from './db';
import { guarded, StoreError } from './errors';
import { EventWriter, type EventSink, type EventWriterOptions } from './event-writer';
import { DEFAULT_EVENT_CAP, EventRepo } from './events';
import { migrate } from './migrations';
import { Recovery } from './recovery';
import { RunRepo, type RunOutcome, type RunStart } from './runs';
import { WorkflowRepo } from './workflows';

export interface StoreOptions {
  /** Stored event rows per run; beyond it only aggregates grow. */
  eventCap?: number;
  /** better-sqlite3's addon file for this runtime (the Electron build in the app; main/desktop/native-modules.ts). */
  nativeBinding?: string;
}

export type ImportedRun = Omit<RunRecord, 'id' | 'workflowName' | 'replayOf' | 'eventsTotal' | 'eventsDropped'>;

export class Store implements EventSink {
  private readonly workflows: WorkflowRepo;
  private readonly runs: RunRepo;
  private readonly events: EventRepo;
  private readonly benchmarks: BenchmarkRepo;
  private readonly recovery: Recovery;
  private closed = false;
  /** Writers made by createEventWriter, flushed by close() so their last events are kept. */
  private readonly writers = new Set<EventWriter>();

  constructor(
    /** The underlying connection, for tests and maintenance; prefer the methods. */
    readonly db: Db,
    readonly path: string,
    readonly schemaVersion: number,
    options: StoreOptions = {},
  ) {
    this.workflows = new WorkflowRepo(db);
    this.runs = new RunRepo(db, path);
    this.events = new EventRepo(db, path, options.eventCap ?? DEFAULT_EVENT_CAP);
    this.benchmarks = new BenchmarkRepo(db, path);
    this.recovery = new Recovery(db);
  }

  private g<T>(fn: () => T): T {
    if (this.closed) throw new StoreError('cannot-open', this.path, `The gpuflow database ${this.path} is closed.`);
    return guarded(this.path, fn);
  }

  /** How long a write waits for another process's lock before failing with a 'busy' StoreError, ms. */
  setBusyTimeout(ms: number): void {
    this.g(() => this.db.pragma(`busy_timeout = ${Math.max(0, Math.floor(ms))}`));
  }

  /** Runs `fn` in one IMMEDIATE transaction (all or nothing). */
  transaction<T>(fn: () => T): T {
    return this.g(() => this.db.transaction(fn).immediate());
  }

  // Workflows
  saveWorkflowVersion(doc: WorkflowDoc, created?: number): { hash: string; id: number; created: boolean } {
    return this.g(() => this.workflows.save(doc, created));
  }
  getWorkflowVersion(hash: string): WorkflowVersionRecord | undefined {
    return this.g(() => this.workflows.get(hash));
  }
  /** By full hash or a unique prefix of at least 4 hex digits. */
  findWorkflowVersion(hashOrPrefix: string): WorkflowVersionRecord | undefined {
    return this.g(() => this.workflows.get(hashOrPrefix) ?? this.workflows.findByPrefix(hashOrPrefix));
  }
  listWorkflowVersions(name?: string): WorkflowVersionSummary[] {
    return this.g(() => this.workflows.versions(name));
  }

  // Runs
  startRun(input: RunStart): { id: number; uuid: string } {
    return this.g(() => this.runs.start(input));
  }
  finishRun(id: number, outcome: RunOutcome): void {
    this.g(() => this.runs.finish(id, outcome));
  }
  getRun(id: number): RunRecord | undefined {
    return this.g(() => this.runs.get(id));
  }
  listRuns(filter?: RunFilter): RunSummary[] {
    return this.g(() => this.runs.list(filter));
  }
  /** Marks runs of dead processes on this host 'interrupted' (recovery.ts); returns their ids. */
  markInterrupted(now?: number): number[] {
    return this.g(() => this.recovery.markInterrupted(now));
  }
  getRunDetail(id: number): RunDetail | undefined {
    const run = this.getRun(id);
    if (!run) return undefined;
    const wf = this.getWorkflowVersion(run.workflowHash);
    return wf && { run, workflow: wf.doc };
  }
  /** What differs between runs `a` and `b` (compare.ts). */
  compareRuns(a: number, b: number): RunComparison {
    const [da, db] = [a, b].map((id) => {
      const d = this.getRunDetail(id);
      if (!d) throw new StoreError('not-found', this.path, `No run ${id} in ${this.path}.`);
      return d;
    });
    return compareRuns(da, db);
  }
  /** An imported run; undefined when its uuid is already here. */
  insertImportedRun(run: ImportedRun, aggregates: readonly EventAggregate[] = []): number | undefined {
    return this.transaction(() => {
      const id = this.runs.insertImported(run);
      if (id !== undefined) this.events.importAggregates(id, aggregates);
      return id;
    });
  }

  // Events
  /** Appends batches of events, one transaction for all (EventSink; used by EventWriter). */
  appendEvents(batches: Iterable<[number, readonly EventInput[]]>): void {
    this.g(() => this.events.appendMany(batches));
  }
  listEvents(runId: number, options?: { afterSeq?: number; limit?: number }): StoredEvent[] {
    return this.g(() => this.events.list(runId, options));
  }
  eventAggregates(runId: number): EventAggregate[] {
    return this.g(() => this.events.aggregates(runId));
  }
  createEventWriter(options?: EventWriterOptions): EventWriter {
    const writer = new EventWriter(this, options);
    this.writers.add(writer);
    return writer;
  }

  // Benchmarks
  saveBenchmark(input: BenchmarkInput): BenchmarkRecord {
    return this.g(() => this.benchmarks.save(input));
  }
  getBenchmark(id: number): BenchmarkRecord | undefined {
    return this.g(() => this.benchmarks.get(id));
  }
  listBenchmarks(workflowHash?: string, limit?: number): BenchmarkRecord[] {
    return this.g(() => this.benchmarks.list(workflowHash, limit));
  }
  /** The latest benchmark of `workflowHash` (before benchmark `before`, on `machine`, when given). */
  previousBenchmark(workflowHash: string, options?: { machine?: string; before?: number }): BenchmarkRecord | undefined {
    return this.g(() => this.benchmarks.previous(workflowHash, options));
  }
  /** Benchmark `id` against the previous one of the same workflow on the same machine. */
  checkSlowdown(id: number, threshold: number = SLOWDOWN_THRESHOLD): { previous: BenchmarkRecord | undefined; slowdowns: Slowdown[] } {
    const current = this.getBenchmark(id);
    if (!current) throw new StoreError('not-found', this.path, `No benchmark ${id} in ${this.path}.`);
    const previous = this.previousBenchmark(current.workflowHash, { machine: current.machine, before: id });
    return { previous, slowdowns: findSlowdowns(current, previous, threshold) };
  }

  /** Flushes this store's event writers, then closes the database. Idempotent. */
  close(): void {
    if (this.closed) return;
    try {
      for (const w of this.writers) w.close();
    } finally {
      this.writers.clear();
      this.closed = true;
      this.db.close();
    }
  }
}

/**
 * Opens the database at `path` (creating it and its folder if needed) and migrates it to the
 * latest schema. Throws a StoreError naming the file when it is read-only, not a database,
 * newer than this build, or the disk is full; the file is left as it was.
 */
export function openStore(path: string, options: StoreOptions = {}): Store {
  const db = openDatabase(path, options.nativeBinding);
  try {
    const version = migrate(db, db.name);
    return new Store(db, db.name, version, options);
  } catch (err) {
    db.close();
    throw err;
  }
}

export type { JsonValue };
