/**
 * Runs: one row per execution of a workflow version, written when it starts (status 'running')
 * and again when it ends. A process that dies in between leaves 'running' behind;
 * recovery.ts turns those into 'interrupted'.
 */
import type { Statement } from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { RUN_STATUSES, type JsonValue, type RunFilter, type RunOutcomeStatus, type RunRecord, type RunStatus, type RunSummary } from '../../common/store-types';
import type { Db } from './db';
import { StoreError } from './errors';
import { ownerToken, thisHost } from './process-token';
import { fromJsonText, StatementCache, toJsonText } from './statements';

export interface RunStart {
  workflowHash: string;
  params?: Record<string, JsonValue>;
  seeds?: JsonValue;
  /** The devices and workers the run used, as the cluster describes them. */
  devices?: JsonValue;
  /** Backend actually used, e.g. per op kind or per worker. */
  backends?: JsonValue;
  /** Machine fingerprint (fingerprint.ts). */
  machine: string;
  replayOf?: number;
  started?: number;
  /** Where it ran: absent/null for this workstation, else its Dask cluster (main/dask/target.ts record()). */
  target?: JsonValue | null;
}

export interface RunOutcome {
  status: RunOutcomeStatus;
  resultDigest?: string | null;
  results?: JsonValue | null;
  error?: string | null;
  ended?: number;
  /**
   * Task events of the run that could not be written (EventWriter.settleRun). They are added to
   * events_total without being stored, so they show in the run's eventsDropped.
   */
  eventsDropped?: number;
}

export interface RunRow {
  id: number;
  uuid: string;
  workflow_hash: string;
  workflow_name: string;
  params: string;
  seeds: string;
  devices: string;
  backends: string;
  machine: string;
  host: string;
  pid: number;
  owner: string;
  started: number;
  ended: number | null;
  status: RunStatus;
  result_digest: string | null;
  results: string | null;
  error: string | null;
  replay_of: number | null;
  events_total: number;
  events_stored: number;
  target: string | null;
}

const SELECT_RUN = `SELECT r.*, w.name AS workflow_name FROM runs r JOIN workflows w ON w.hash = r.workflow_hash`;

const SORT_SQL: Record<NonNullable<RunFilter['sort']>, string> = {
  started: 'r.started',
  duration: '(r.ended - r.started)',
  status: 'r.status',
  name: 'w.name COLLATE NOCASE',
  id: 'r.id',
};

export const MAX_LIST_LIMIT = 10_000;

export class RunRepo {
  private readonly insert: Statement;
  private readonly update: Statement;
  private readonly byId: Statement;
  private readonly byUuid: Statement;
  private readonly workflowExists: Statement;
  private readonly statements: StatementCache;

  constructor(
    private readonly db: Db,
    private readonly path: string,
  ) {
    this.insert = db.prepare(`INSERT INTO runs (uuid, workflow_hash, params, seeds, devices, backends, machine, host, pid, owner,
      started, ended, status, result_digest, results, error, replay_of, target)
      VALUES (@uuid, @workflowHash, @params, @seeds, @devices, @backends, @machine, @host, @pid, @owner,
      @started, @ended, @status, @resultDigest, @results, @error, @replayOf, @target) ON CONFLICT(uuid) DO NOTHING`);
    this.update = db.prepare(`UPDATE runs SET status = ?, ended = ?, result_digest = ?, results = ?, error = ?, events_total = events_total + ? WHERE id = ?`);
    this.byId = db.prepare(`${SELECT_RUN} WHERE r.id = ?`);
    this.byUuid = db.prepare('SELECT id FROM runs WHERE uuid = ?');
    this.workflowExists = db.prepare('SELECT 1 FROM workflows WHERE hash = ?');
    this.statements = new StatementCache(db);
  }

  /** Records a run this process is starting. */
  start(input: RunStart): { id: number; uuid: string } {
    if (!this.workflowExists.get(input.workflowHash)) {
      throw new StoreError(
        'not-found',
        this.path,
        `Cannot record a run of workflow ${input.workflowHash}: that version is not saved. Save it first (saveWorkflowVersion).`,
      );
    }
    const uuid = randomUUID();
    const info = this.insert.run({
      uuid,
      workflowHash: input.workflowHash,
      params: toJsonText(input.params ?? {}),
      seeds: toJsonText(input.seeds),
      devices: toJsonText(input.devices ?? []),
      backends: toJsonText(input.backends ?? {}),
      machine: input.machine,
      host: thisHost(),
      pid: process.pid,
      owner: ownerToken() ?? `${thisHost()}:${process.pid}`,
      started: input.started ?? Date.now(),
      ended: null,
      status: 'running',
      resultDigest: null,
      results: null,
      error: null,
      replayOf: input.replayOf ?? null,
      target: input.target == null ? null : toJsonText(input.target),
    });
    return { id: Number(info.lastInsertRowid), uuid };
  }

  /** Records how run `id` ended. */
  finish(id: number, outcome: RunOutcome): void {
    if (!(['done', 'failed', 'cancelled'] as const).includes(outcome.status)) {
      throw new RangeError(`finishRun: status must be done, failed or cancelled, got ${String(outcome.status)}`);
    }
    const info = this.update.run(
      outcome.status,
      outcome.ended ?? Date.now(),
      outcome.resultDigest ?? null,
      outcome.results === undefined ? null : toJsonText(outcome.results),
      outcome.error ?? null,
      Math.max(0, Math.trunc(outcome.eventsDropped ?? 0)),
      id,
    );
    if (info.changes === 0) throw new StoreError('not-found', this.path, `No run ${id} in ${this.path}.`);
  }

  get(id: number): RunRecord | undefined {
    const row = this.byId.get(id) as RunRow | undefined;
    return row && toRecord(row);
  }

  idOfUuid(uuid: string): number | undefined {
    return (this.byUuid.get(uuid) as { id: number } | undefined)?.id;
  }

  /** Inserts an imported run as it was (keeps its uuid); false when that uuid is already here. */
  insertImported(run: Omit<RunRecord, 'id' | 'workflowName' | 'replayOf' | 'eventsTotal' | 'eventsDropped'> & { owner?: string }): number | undefined {
    const info = this.insert.run({
      ...run,
      params: toJsonText(run.params),
      seeds: toJsonText(run.seeds),
      devices: toJsonText(run.devices),
      backends: toJsonText(run.backends),
      results: run.results === null ? null : toJsonText(run.results),
      owner: run.owner ?? `imported:${run.host}:${run.pid}`,
      replayOf: null,
      target: run.target == null ? null : toJsonText(run.target),
    });
    return info.changes === 1 ? Number(info.lastInsertRowid) : undefined;
  }

  /** The history list: filtered, sorted, paged. */
  list(filter: RunFilter = {}): RunSummary[] {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (filter.status !== undefined) {
      const statuses = Array.isArray(filter.status) ? filter.status : [filter.status];
      for (const s of statuses) {
        if (!RUN_STATUSES.includes(s)) throw new RangeError(`run filter: unknown status "${String(s)}" (expected one of ${RUN_STATUSES.join(', ')})`);
      }
      if (statuses.length === 0) return [];
      where.push(`r.status IN (${statuses.map(() => '?').join(', ')})`);
      args.push(...statuses);
    }
    if (filter.workflow) {
      const like = filter.workflow.replace(/[\\%_]/g, (c) => `\\${c}`);
      where.push(`(w.name LIKE ? ESCAPE '\\' OR r.workflow_hash LIKE ? ESCAPE '\\')`);
      args.push(`%${like}%`, `${like.toLowerCase()}%`);
    }
    if (filter.from !== undefined) {
      where.push('r.started >= ?');
      args.push(filter.from);
    }
    if (filter.to !== undefined) {
      where.push('r.started < ?');
      args.push(filter.to);
    }
    const sort = filter.sort ?? 'started';
    const sortSql = SORT_SQL[sort];
    if (!sortSql) throw new RangeError(`run filter: unknown sort "${String(sort)}" (expected one of ${Object.keys(SORT_SQL).join(', ')})`);
    const order = filter.order === 'asc' ? 'ASC' : 'DESC';
    const limit = Math.min(Math.max(Math.trunc(filter.limit ?? 200), 0), MAX_LIST_LIMIT);
    const offset = Math.max(Math.trunc(filter.offset ?? 0), 0);
    // Fixed fragments only: user text travels as bound arguments, never as SQL.
    const sql = `${SELECT_RUN}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}
      ORDER BY ${sortSql} ${order} NULLS LAST, r.id ${order} LIMIT ? OFFSET ?`;
    const rows = this.statements.get(sql).all(...args, limit, offset) as RunRow[];
    return rows.map(toSummary);
  }
}

function toSummary(row: RunRow): RunSummary {
  return {
    id: row.id,
    uuid: row.uuid,
    workflowHash: row.workflow_hash,
    workflowName: row.workflow_name,
    machine: row.machine,
    host: row.host,
    pid: row.pid,
    started: row.started,
    ended: row.ended,
    status: row.status,
    resultDigest: row.result_digest,
    error: row.error,
    replayOf: row.replay_of,
    eventsTotal: row.events_total,
    eventsDropped: row.events_total - row.events_stored,
    durationMs: row.ended === null ? null : row.ended - row.started,
    target: row.target === null ? null : fromJsonText(row.target),
  };
}

export function toRecord(row: RunRow): RunRecord {
  const { durationMs: _omit, ...summary } = toSummary(row);
  return {
    ...summary,
    params: fromJsonText(row.params),
    seeds: fromJsonText(row.seeds),
    devices: fromJsonText(row.devices),
    backends: fromJsonText(row.backends),
    results: fromJsonText(row.results),
  };
}
