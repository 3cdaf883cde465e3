/**
 * Benchmarks: one row per benchmark of a workflow version on a machine, one row per configuration
 * ('1 CPU core', 'all CPU cores', '1 GPU', 'all GPUs'). Configurations the machine lacks are
 * stored as unavailable with the reason, never with made-up times. Median, spread and the
 * digest agreement are computed here from what the caller measured, so every reader sees the
 * same figures.
 */
import type { Statement } from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { DIGEST_SIGNIFICANT_DIGITS } from '../../common/digest';
import { BENCHMARK_CONFIG_NAMES, type BenchmarkConfigName, type BenchmarkConfigRecord, type BenchmarkRecord, type JsonValue } from '../../common/store-types';
import { digestsAgree, median, spread } from './bench-stats';
import type { Db } from './db';
import { StoreError } from './errors';
import { thisHost } from './process-token';
import { fromJsonText, toJsonText } from './statements';

export interface BenchmarkConfigInput {
  name: BenchmarkConfigName;
  available: boolean;
  unavailableReason?: string | null;
  virtual?: boolean;
  workers: number;
  /** Timed repetitions, ms; empty when unavailable. */
  times: number[];
  digest?: string | null;
  backends?: JsonValue;
}

export interface BenchmarkInput {
  workflowHash: string;
  machine: string;
  params?: Record<string, JsonValue>;
  warmup: number;
  repetitions: number;
  configs: BenchmarkConfigInput[];
  toleranceDigits?: number;
  created?: number;
  /** Kept on import so importing twice adds nothing. */
  uuid?: string;
  host?: string;
}

interface BenchmarkRow {
  id: number;
  uuid: string;
  workflow_hash: string;
  workflow_name: string;
  machine: string;
  host: string;
  created: number;
  params: string;
  warmup: number;
  repetitions: number;
  digests_agree: number;
  tolerance_digits: number;
}

interface ConfigRow {
  name: BenchmarkConfigName;
  available: number;
  unavailable_reason: string | null;
  virtual: number;
  workers: number;
  times: string;
  median: number | null;
  spread: number | null;
  digest: string | null;
  backends: string;
}

const SELECT = 'SELECT b.*, w.name AS workflow_name FROM benchmarks b JOIN workflows w ON w.hash = b.workflow_hash';

/** Checks a benchmark's configurations; throws RangeError naming the bad field. */
export function checkConfigs(configs: readonly BenchmarkConfigInput[]): void {
  const seen = new Set<string>();
  configs.forEach((c, i) => {
    const at = `configs[${i}]`;
    if (!BENCHMARK_CONFIG_NAMES.includes(c.name)) throw new RangeError(`${at}.name: "${String(c.name)}" is not one of ${BENCHMARK_CONFIG_NAMES.join(', ')}`);
    if (seen.has(c.name)) throw new RangeError(`${at}.name: "${c.name}" appears twice`);
    seen.add(c.name);
    if (!Number.isInteger(c.workers) || c.workers < 0) throw new RangeError(`${at}.workers: must be a non-negative integer`);
    const bad = c.times.findIndex((t) => !(Number.isFinite(t) && t >= 0));
    if (bad >= 0) throw new RangeError(`${at}.times[${bad}]: must be a finite, non-negative number of ms`);
    if (c.available && c.times.length === 0) throw new RangeError(`${at}.times: an available configuration needs at least one timed repetition`);
    if (!c.available && c.times.length > 0) throw new RangeError(`${at}.times: an unavailable configuration has no times`);
    if (!c.available && !c.unavailableReason) throw new RangeError(`${at}.unavailableReason: say why "${c.name}" is unavailable`);
  });
}

export class BenchmarkRepo {
  private readonly insert: Statement;
  private readonly insertConfig: Statement;
  private readonly byId: Statement;
  private readonly configsOf: Statement;
  private readonly previousStmt: Statement;
  private readonly previousSameMachine: Statement;
  private readonly listStmt: Statement;
  private readonly workflowExists: Statement;
  private readonly byUuid: Statement;

  constructor(
    private readonly db: Db,
    private readonly path: string,
  ) {
    this.insert = db.prepare(`INSERT INTO benchmarks (uuid, workflow_hash, machine, host, created, params, warmup, repetitions, digests_agree, tolerance_digits)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(uuid) DO NOTHING`);
    this.insertConfig =
      db.prepare(`INSERT INTO benchmark_configs (benchmark_id, position, name, available, unavailable_reason, virtual, workers, times, median, spread, digest, backends)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.byId = db.prepare(`${SELECT} WHERE b.id = ?`);
    this.configsOf = db.prepare('SELECT * FROM benchmark_configs WHERE benchmark_id = ? ORDER BY position');
    // (created, id) orders benchmarks even when two share a millisecond.
    this.previousStmt = db.prepare(`SELECT id FROM benchmarks WHERE workflow_hash = ? AND (created, id) < (?, ?)
      ORDER BY created DESC, id DESC LIMIT 1`);
    this.previousSameMachine = db.prepare(`SELECT id FROM benchmarks WHERE workflow_hash = ? AND machine = ? AND (created, id) < (?, ?)
      ORDER BY created DESC, id DESC LIMIT 1`);
    this.listStmt = db.prepare(`SELECT id FROM benchmarks WHERE (@hash IS NULL OR workflow_hash = @hash) ORDER BY created DESC, id DESC LIMIT @limit`);
    this.byUuid = db.prepare('SELECT id FROM benchmarks WHERE uuid = ?');
    this.workflowExists = db.prepare('SELECT 1 FROM workflows WHERE hash = ?');
  }

  /** Saves a benchmark and returns it as stored; an import whose uuid is already here returns the existing one. */
  save(input: BenchmarkInput): BenchmarkRecord {
    checkConfigs(input.configs);
    if (!this.workflowExists.get(input.workflowHash)) {
      throw new StoreError(
        'not-found',
        this.path,
        `Cannot save a benchmark of workflow ${input.workflowHash}: that version is not saved. Save it first (saveWorkflowVersion).`,
      );
    }
    const configs: BenchmarkConfigRecord[] = input.configs.map((c) => ({
      name: c.name,
      available: c.available,
      unavailableReason: c.available ? null : (c.unavailableReason ?? null),
      virtual: c.virtual ?? false,
      workers: c.workers,
      times: [...c.times],
      median: median(c.times),
      spread: spread(c.times),
      digest: c.digest ?? null,
      backends: c.backends ?? null,
    }));
    const uuid = input.uuid ?? randomUUID();
    const id = this.db
      .transaction(() => {
        const info = this.insert.run(
          uuid,
          input.workflowHash,
          input.machine,
          input.host ?? thisHost(),
          input.created ?? Date.now(),
          toJsonText(input.params ?? {}),
          input.warmup,
          input.repetitions,
          digestsAgree(configs) ? 1 : 0,
          input.toleranceDigits ?? DIGEST_SIGNIFICANT_DIGITS,
        );
        if (info.changes === 0) return (this.byUuid.get(uuid) as { id: number }).id;
        const newId = Number(info.lastInsertRowid);
        configs.forEach((c, i) => {
          this.insertConfig.run(
            newId,
            i,
            c.name,
            c.available ? 1 : 0,
            c.unavailableReason,
            c.virtual ? 1 : 0,
            c.workers,
            toJsonText(c.times),
            c.median,
            c.spread,
            c.digest,
            toJsonText(c.backends),
          );
        });
        return newId;
      })
      .immediate();
    return this.get(id)!;
  }

  get(id: number): BenchmarkRecord | undefined {
    const row = this.byId.get(id) as BenchmarkRow | undefined;
    if (!row) return undefined;
    const configs = (this.configsOf.all(id) as ConfigRow[]).map((c): BenchmarkConfigRecord => ({
      name: c.name,
      available: c.available === 1,
      unavailableReason: c.unavailable_reason,
      virtual: c.virtual === 1,
      workers: c.workers,
      times: fromJsonText<number[]>(c.times),
      median: c.median,
      spread: c.spread,
      digest: c.digest,
      backends: fromJsonText<JsonValue>(c.backends),
    }));
    return {
      id: row.id,
      uuid: row.uuid,
      workflowHash: row.workflow_hash,
      workflowName: row.workflow_name,
      machine: row.machine,
      host: row.host,
      created: row.created,
      params: fromJsonText(row.params),
      warmup: row.warmup,
      repetitions: row.repetitions,
      configs,
      digestsAgree: row.digests_agree === 1,
      toleranceDigits: row.tolerance_digits,
    };
  }

  /** Benchmarks newest first, of one workflow version when given. */
  list(workflowHash?: string, limit = 100): BenchmarkRecord[] {
    return (this.listStmt.all({ hash: workflowHash ?? null, limit }) as { id: number }[]).map((r) => this.get(r.id)!);
  }

  /**
   * The latest benchmark of `workflowHash` before `before` (a benchmark id; default: the newest,
   * i.e. the one before everything), on `machine` when given.
   */
  previous(workflowHash: string, options: { machine?: string; before?: number } = {}): BenchmarkRecord | undefined {
    let created = Number.MAX_SAFE_INTEGER;
    let id = Number.MAX_SAFE_INTEGER;
    if (options.before !== undefined) {
      const b = this.get(options.before);
      if (!b) throw new StoreError('not-found', this.path, `No benchmark ${options.before} in ${this.path}.`);
      created = b.created;
      id = b.id;
    }
    const row = (
      options.machine === undefined
        ? this.previousStmt.get(workflowHash, created, id)
        : this.previousSameMachine.get(workflowHash, options.machine, created, id)
    ) as { id: number } | undefined;
    return row && this.get(row.id);
  }
}
