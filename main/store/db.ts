/**
 * Opening the database file. WAL lets readers (the UI, `gpuflow history`) work while a run
 * writes; busy_timeout makes a second writer wait for the lock instead of failing, so two
 * processes writing at once lose nothing; synchronous=NORMAL is safe with WAL (a power cut may
 * lose the last commits, never corrupt the file) and keeps commits cheap.
 *
 * Every check that can fail runs before anything is written, so a read-only or foreign file is
 * reported and left byte-for-byte as it was.
 */
import Database from 'better-sqlite3';
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { guarded, StoreError } from './errors';

export type Db = Database.Database;

/** How long a writer waits for another process's lock before giving up, ms. */
export const BUSY_TIMEOUT_MS = 10_000;
/** Retries (20 ms apart) of the WAL switch when a concurrent creator holds the new file. */
const OPEN_RETRIES = 250;

// Light enough for the CLI's first lines (no SQLite): `gpuflow run` looks for a warm serve beside it.
export { DB_FILE_NAME, defaultDbPath } from './default-path';

function checkWritable(path: string): void {
  const dir = dirname(path);
  guarded(path, () => mkdirSync(dir, { recursive: true }));
  let exists = true;
  try {
    const st = statSync(path);
    if (!st.isFile())
      throw new StoreError('cannot-open', path, `${path} is not a file (it is a folder or a device). Choose a file path for the database (CLI: --db <file>).`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    exists = false;
  }
  // SQLite silently opens a read-only file read-only; WAL needs to create -wal/-shm beside it.
  guarded(path, () => accessSync(dir, constants.W_OK));
  if (exists) guarded(path, () => accessSync(path, constants.R_OK | constants.W_OK));
}

/**
 * Opens (creating if absent) the SQLite file at `path` with the store's pragmas. No schema yet.
 * `nativeBinding`: better-sqlite3's addon file when not its default (Node) build.
 */
export function openDatabase(path: string, nativeBinding?: string): Db {
  const full = resolve(path);
  checkWritable(full);
  const db = guarded(full, () => new Database(full, nativeBinding ? { timeout: BUSY_TIMEOUT_MS, nativeBinding } : { timeout: BUSY_TIMEOUT_MS }));
  // Switching a brand-new file to WAL while another process creates it too can answer
  // SQLITE_BUSY at once (the busy timeout does not cover it): wait a little and try again.
  for (let attempt = 0; ; attempt++) {
    try {
      guarded(full, () => {
        // The first statement reads the header: a foreign file fails here, before any write.
        db.pragma('schema_version', { simple: true });
        const mode = db.pragma('journal_mode = WAL', { simple: true });
        if (mode !== 'wal')
          throw new StoreError(
            'io',
            full,
            `Could not switch ${full} to WAL mode (got ${String(mode)}); the file system may not support it. Choose a database on a local disk (CLI: --db <file>).`,
          );
        db.pragma('foreign_keys = ON');
        db.pragma('synchronous = NORMAL');
      });
      return db;
    } catch (err) {
      if (err instanceof StoreError && err.code === 'busy' && attempt < OPEN_RETRIES) {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
        continue;
      }
      db.close();
      throw err;
    }
  }
}
