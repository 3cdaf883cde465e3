/**
 * Schema migrations. `schema_version` holds one row per applied migration; the database's version
 * is the highest. Each migration runs in its own IMMEDIATE transaction that re-reads the version
 * first, so two processes opening a fresh file at once apply each step exactly once, and a crash
 * mid-migration leaves the previous version intact.
 *
 * Append new migrations at the end; never edit one that has shipped.
 *
 * v1: workflows (content-hashed versions), runs, task events.
 * v2: per-(op, worker) event aggregates (backfilled from v1's events), run event counters,
 *     benchmarks and their configurations.
 * v3: a run's target (NULL: this workstation; JSON of its Dask cluster: address, versions,
 *     workers), the benchmark configuration 'Dask cluster' (the CHECK is rebuilt), and app
 *     settings (key -> JSON; 'dask.target': the cluster runs go to, remembered between sessions).
 */
import type { Db } from './db';
import { guarded, StoreError } from './errors';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const V1 = `
CREATE TABLE workflows (
  id      INTEGER PRIMARY KEY,
  hash    TEXT NOT NULL UNIQUE,          -- sha256 of the document's canonical JSON
  name    TEXT NOT NULL,
  doc     TEXT NOT NULL,                 -- the document, canonical JSON
  created INTEGER NOT NULL               -- ms since epoch
);
CREATE INDEX workflows_name ON workflows(name);

CREATE TABLE runs (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  uuid          TEXT NOT NULL UNIQUE,
  workflow_hash TEXT NOT NULL REFERENCES workflows(hash),
  params        TEXT NOT NULL DEFAULT '{}',
  seeds         TEXT NOT NULL DEFAULT 'null',
  devices       TEXT NOT NULL DEFAULT '[]',
  backends      TEXT NOT NULL DEFAULT '{}',
  machine       TEXT NOT NULL,           -- machine fingerprint
  host          TEXT NOT NULL,
  pid           INTEGER NOT NULL,
  owner         TEXT NOT NULL,           -- boot id : pid : process start time, see recovery.ts
  started       INTEGER NOT NULL,
  ended         INTEGER,
  status        TEXT NOT NULL CHECK (status IN ('running','done','failed','cancelled','interrupted')),
  result_digest TEXT,
  results       TEXT,
  error         TEXT,
  replay_of     INTEGER REFERENCES runs(id) ON DELETE SET NULL
);
CREATE INDEX runs_started ON runs(started);
CREATE INDEX runs_status ON runs(status);
CREATE INDEX runs_workflow ON runs(workflow_hash);

CREATE TABLE events (
  run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq     INTEGER NOT NULL,
  t       REAL NOT NULL,                 -- ms since the run started
  type    TEXT NOT NULL,
  key     TEXT,
  worker  TEXT,
  op      TEXT,
  ms      REAL,
  bytes   INTEGER,
  backend TEXT,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
`;

const V2 = `
ALTER TABLE runs ADD COLUMN events_total INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN events_stored INTEGER NOT NULL DEFAULT 0;

CREATE TABLE event_aggregates (
  run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  op          TEXT NOT NULL,             -- '' for events without an op
  worker      TEXT NOT NULL,             -- '' for events without a worker
  events      INTEGER NOT NULL,
  tasks       INTEGER NOT NULL,          -- events that carried a duration
  ms_total    REAL NOT NULL,
  ms_max      REAL NOT NULL,
  bytes_total INTEGER NOT NULL,
  PRIMARY KEY (run_id, op, worker)
) WITHOUT ROWID;

INSERT INTO event_aggregates (run_id, op, worker, events, tasks, ms_total, ms_max, bytes_total)
SELECT run_id, COALESCE(op, ''), COALESCE(worker, ''), COUNT(*), COUNT(ms),
       COALESCE(SUM(ms), 0), COALESCE(MAX(ms), 0), COALESCE(SUM(bytes), 0)
FROM events GROUP BY run_id, COALESCE(op, ''), COALESCE(worker, '');

UPDATE runs SET
  events_total  = (SELECT COUNT(*) FROM events WHERE events.run_id = runs.id),
  events_stored = (SELECT COUNT(*) FROM events WHERE events.run_id = runs.id);

CREATE TABLE benchmarks (
  id             INTEGER PRIMARY KEY AUTOINCREMENT,
  uuid           TEXT NOT NULL UNIQUE,
  workflow_hash  TEXT NOT NULL REFERENCES workflows(hash),
  machine        TEXT NOT NULL,
  host           TEXT NOT NULL,
  created        INTEGER NOT NULL,
  params         TEXT NOT NULL DEFAULT '{}',
  warmup         INTEGER NOT NULL,
  repetitions    INTEGER NOT NULL,
  digests_agree  INTEGER NOT NULL,
  tolerance_digits INTEGER NOT NULL
);
CREATE INDEX benchmarks_workflow ON benchmarks(workflow_hash, machine, created);

CREATE TABLE benchmark_configs (
  benchmark_id       INTEGER NOT NULL REFERENCES benchmarks(id) ON DELETE CASCADE,
  position           INTEGER NOT NULL,
  name               TEXT NOT NULL CHECK (name IN ('1 CPU core','all CPU cores','1 GPU','all GPUs')),
  available          INTEGER NOT NULL,
  unavailable_reason TEXT,
  virtual            INTEGER NOT NULL,
  workers            INTEGER NOT NULL,
  times              TEXT NOT NULL,      -- JSON array of ms
  median             REAL,
  spread             REAL,
  digest             TEXT,
  backends           TEXT NOT NULL DEFAULT 'null',
  PRIMARY KEY (benchmark_id, name)
) WITHOUT ROWID;
`;

const V3 = `
ALTER TABLE runs ADD COLUMN target TEXT;

CREATE TABLE benchmark_configs_v3 (
  benchmark_id       INTEGER NOT NULL REFERENCES benchmarks(id) ON DELETE CASCADE,
  position           INTEGER NOT NULL,
  name               TEXT NOT NULL CHECK (name IN ('1 CPU core','all CPU cores','1 GPU','all GPUs','Dask cluster')),
  available          INTEGER NOT NULL,
  unavailable_reason TEXT,
  virtual            INTEGER NOT NULL,
  workers            INTEGER NOT NULL,
  times              TEXT NOT NULL,      -- JSON array of ms
  median             REAL,
  spread             REAL,
  digest             TEXT,
  backends           TEXT NOT NULL DEFAULT 'null',
  PRIMARY KEY (benchmark_id, name)
) WITHOUT ROWID;
INSERT INTO benchmark_configs_v3 SELECT benchmark_id, position, name, available, unavailable_reason, virtual, workers, times, median, spread, digest, backends FROM benchmark_configs;
DROP TABLE benchmark_configs;
ALTER TABLE benchmark_configs_v3 RENAME TO benchmark_configs;

CREATE TABLE settings (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL                  -- JSON
) WITHOUT ROWID;
`;

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'workflows, runs, events', sql: V1 },
  { version: 2, name: 'event aggregates, benchmarks', sql: V2 },
  { version: 3, name: 'run targets (Dask), Dask benchmark configuration', sql: V3 },
];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

const VERSION_TABLE = `CREATE TABLE IF NOT EXISTS schema_version (
  version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied INTEGER NOT NULL)`;

/** The database's schema version; 0 for a new file. */
export function schemaVersion(db: Db): number {
  const exists = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'`).get();
  if (!exists) return 0;
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number | null };
  return row.v ?? 0;
}

/**
 * Brings the database at `path` up to `target` (default: the latest). Refuses, writing nothing,
 * a database newer than this build. Returns the version reached.
 */
export function migrate(db: Db, path: string, target: number = LATEST_VERSION): number {
  return guarded(path, () => {
    const found = schemaVersion(db);
    if (found > LATEST_VERSION) {
      throw new StoreError(
        'newer-schema',
        path,
        `The gpuflow database ${path} has schema version ${found}, newer than this gpuflow knows (${LATEST_VERSION}). ` +
          `It was left untouched; use a newer gpuflow, or choose another database file (CLI: --db <file>).`,
      );
    }
    for (const m of MIGRATIONS) {
      if (m.version > target) break;
      db.transaction(() => {
        db.exec(VERSION_TABLE);
        // Re-read inside the lock: another process may have applied this step meanwhile.
        if (schemaVersion(db) >= m.version) return;
        db.exec(m.sql);
        db.prepare('INSERT INTO schema_version (version, name, applied) VALUES (?, ?, ?)').run(m.version, m.name, Date.now());
      }).immediate();
    }
    return schemaVersion(db);
  });
}
