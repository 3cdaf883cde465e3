/**
 * Records the store hands out, as the renderer, the API and the CLI see them. Plain data: times
 * are milliseconds since the Unix epoch, JSON columns come back parsed. No runtime imports.
 */
import type { WorkflowDoc } from './workflow';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

export const RUN_STATUSES = ['running', 'done', 'failed', 'cancelled', 'interrupted'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** Statuses a finished run may be given by its owner (interrupted is set by recovery only). */
export type RunOutcomeStatus = Exclude<RunStatus, 'running' | 'interrupted'>;

export interface WorkflowVersionRecord {
  id: number;
  /** sha256 of the document's canonical JSON (common/digest.ts contentHash). */
  hash: string;
  name: string;
  doc: WorkflowDoc;
  created: number;
}

export interface RunRecord {
  id: number;
  /** Stable across databases: export / import keeps it, so importing twice adds nothing. */
  uuid: string;
  workflowHash: string;
  workflowName: string;
  params: Record<string, JsonValue>;
  seeds: JsonValue;
  devices: JsonValue;
  backends: JsonValue;
  machine: string;
  host: string;
  pid: number;
  started: number;
  ended: number | null;
  status: RunStatus;
  resultDigest: string | null;
  /** Small summary of the results (shapes, scalars, best params), not the data. */
  results: JsonValue | null;
  error: string | null;
  /** Run id this one replays, if it is a replay. */
  replayOf: number | null;
  eventsTotal: number;
  /** Events beyond the per-run cap: counted in the aggregates only. */
  eventsDropped: number;
  /** The workflow version it ran, when asked for one run through the API (GET /api/runs/:id). */
  workflow?: WorkflowDoc;
  /** Where it ran: null for this workstation, else its Dask cluster {kind: 'dask', target, scheduler, versions, workers}. */
  target?: JsonValue | null;
}

/** A row of the history list. */
export type RunSummary = Omit<RunRecord, 'params' | 'seeds' | 'devices' | 'backends' | 'results'> & {
  durationMs: number | null;
};

export type RunSortKey = 'started' | 'duration' | 'status' | 'name' | 'id';

export interface RunFilter {
  status?: RunStatus | RunStatus[];
  /** Matches a workflow name (case-insensitive substring) or a hash prefix. */
  workflow?: string;
  /** Started at or after (ms epoch). */
  from?: number;
  /** Started before (ms epoch). */
  to?: number;
  sort?: RunSortKey;
  order?: 'asc' | 'desc';
  limit?: number;
  offset?: number;
}

/** One compact task event as stored. `t` is ms since the run started. */
export interface StoredEvent {
  seq: number;
  t: number;
  type: string;
  key: string | null;
  worker: string | null;
  op: string | null;
  ms: number | null;
  bytes: number | null;
  backend: string | null;
}

/** What the scheduler hands the event writer; seq is assigned by the store. */
export type EventInput = Pick<StoredEvent, 't' | 'type'> & Partial<Omit<StoredEvent, 'seq' | 't' | 'type'>>;

/** Per (op, worker) totals over every event of a run, kept even past the event cap. */
export interface EventAggregate {
  op: string;
  worker: string;
  /** Events of any type for this op on this worker. */
  events: number;
  /** Events that carried a duration (finished tasks). */
  tasks: number;
  msTotal: number;
  msMax: number;
  bytesTotal: number;
}

export const BENCHMARK_CONFIG_NAMES = ['1 CPU core', 'all CPU cores', '1 GPU', 'all GPUs', 'Dask cluster'] as const;
export type BenchmarkConfigName = (typeof BENCHMARK_CONFIG_NAMES)[number];

export interface BenchmarkConfigRecord {
  name: BenchmarkConfigName;
  available: boolean;
  /** Why the machine cannot run this configuration (no GPU, one GPU only, ...). */
  unavailableReason: string | null;
  /** Runs on virtual GPUs (CPU workers standing in for GPUs): labelled, never passed off as real. */
  virtual: boolean;
  workers: number;
  /** Wall times of the timed repetitions, ms (warm-up excluded). */
  times: number[];
  median: number | null;
  /** (max - min) / median of the times; 0 with one repetition. */
  spread: number | null;
  digest: string | null;
  backends: JsonValue;
}

export interface BenchmarkRecord {
  id: number;
  uuid: string;
  workflowHash: string;
  workflowName: string;
  machine: string;
  host: string;
  created: number;
  params: Record<string, JsonValue>;
  warmup: number;
  repetitions: number;
  configs: BenchmarkConfigRecord[];
  /** Every available configuration's digest is the same. */
  digestsAgree: boolean;
  /** Significant digits the digests were taken at (common/digest.ts). */
  toleranceDigits: number;
}

export interface Slowdown {
  name: BenchmarkConfigName;
  previousMedian: number;
  median: number;
  /** median / previousMedian, > 1 + threshold when flagged. */
  ratio: number;
}

export interface JsonDifference {
  /** e.g. `nodes[id=gen].params.n`, `params.N`. */
  path: string;
  a: JsonValue | undefined;
  b: JsonValue | undefined;
}

export interface RunComparison {
  sameWorkflow: boolean;
  workflow: JsonDifference[];
  params: JsonDifference[];
  seeds: JsonDifference[];
  devices: JsonDifference[];
  backends: JsonDifference[];
  times: { aMs: number | null; bMs: number | null; ratio: number | null };
  sameDigest: boolean;
  results: JsonDifference[];
  status: { a: RunStatus; b: RunStatus };
}

export type WorkflowVersionSummary = Omit<WorkflowVersionRecord, 'doc'>;
