/**
 * The store's errors: one class, a closed set of codes, and messages that name the file and say
 * what to do next. SQLite and filesystem errors are translated here, in one table, so every
 * caller (app, serve, CLI) shows the same sentence.
 */
import { readFileSync, statfsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

export type StoreErrorCode =
  'read-only' | 'not-a-database' | 'disk-full' | 'newer-schema' | 'corrupt' | 'busy' | 'cannot-open' | 'invalid-import' | 'not-found' | 'io';

export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(
    readonly code: StoreErrorCode,
    /** The database or file the error is about. */
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const MESSAGES: Record<Exclude<StoreErrorCode, 'newer-schema' | 'invalid-import' | 'not-found'>, (p: string) => string> = {
  'read-only': (p) =>
    `Cannot write the gpuflow database ${p}: the file or its folder ${dirname(p)} is read-only. ` +
    `Make both writable, or choose another database file (CLI: --db <file>).`,
  'not-a-database': (p) =>
    `${p} is not a gpuflow database (not an SQLite file); it was left untouched. ` + `Choose another database file (CLI: --db <file>) or move this one aside.`,
  'disk-full': (p) => `The disk holding ${p} is full: the last change was not saved; everything saved before is intact. ` + `Free some space and try again.`,
  corrupt: (p) =>
    `The gpuflow database ${p} is damaged. It was left as it is; move it aside (gpuflow starts a new ` +
    `one) and try \`sqlite3 ${p} .recover\` to rescue its contents.`,
  busy: (p) =>
    `The gpuflow database ${p} stayed locked by another process for too long. Close other gpuflow ` +
    `instances using it, or choose another database file (CLI: --db <file>).`,
  'cannot-open': (p) =>
    `Cannot open the gpuflow database ${p}: the path is not a file that can be opened. ` +
    `Check that ${dirname(p)} exists and is a folder, or choose another database file (CLI: --db <file>).`,
  io: (p) => `Reading or writing the gpuflow database ${p} failed (I/O error). Check the disk and try again.`,
};

function codeOf(err: unknown): string {
  return typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string' ? (err as { code: string }).code : '';
}

/** The store code for an SQLite (`SQLITE_*`) or filesystem (`E*`) error, if it is one we explain. */
export function classify(err: unknown): StoreErrorCode | undefined {
  const code = codeOf(err);
  if (code.startsWith('SQLITE_READONLY') || code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return 'read-only';
  if (code === 'SQLITE_NOTADB') return 'not-a-database';
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG') return 'disk-full';
  if (code.startsWith('SQLITE_CORRUPT')) return 'corrupt';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'busy';
  if (code.startsWith('SQLITE_CANTOPEN') || code === 'EISDIR' || code === 'ENOTDIR') return 'cannot-open';
  if (code.startsWith('SQLITE_IOERR') || code === 'EIO') return 'io';
  return undefined;
}

/** `err` as a StoreError about `path` when it is a known SQLite/filesystem error; else `err` itself. */
export function translateError(err: unknown, path: string): unknown {
  if (err instanceof StoreError) return err;
  let code = classify(err);
  // SQLite reports a write refused for the file size limit (EFBIG) as SQLITE_IOERR_WRITE, and a
  // full disk met while growing the WAL or journal as other SQLITE_IOERR_* codes: look at the disk.
  if (code === 'io' && codeOf(err).startsWith('SQLITE_IOERR') && looksFull(path)) code = 'disk-full';
  if (code === undefined || code === 'newer-schema' || code === 'invalid-import' || code === 'not-found') return err;
  return new StoreError(code, path, MESSAGES[code](path), { cause: err });
}

const MARGIN = 1024 * 1024;

/** Whether the disk holding `path` is (nearly) full, or its files are at this process's file size limit. */
export function looksFull(path: string): boolean {
  try {
    const s = statfsSync(dirname(path));
    if (s.bavail * s.bsize < MARGIN) return true;
  } catch {
    // not knowable here
  }
  let limit = Infinity;
  try {
    // RLIMIT_FSIZE, as Linux shows it; writes past it fail with EFBIG.
    const m = /^Max file size\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (m) limit = Number(m[1]);
  } catch {
    return false;
  }
  if (!Number.isFinite(limit)) return false;
  for (const f of [path, `${path}-wal`, `${path}-journal`]) {
    try {
      if (statSync(f).size + MARGIN >= limit) return true;
    } catch {
      // no such file
    }
  }
  return false;
}

/** A short reason for a failed write, for notes such as "… could not be saved: disk full". */
export function shortReason(err: unknown): string {
  const code = err instanceof StoreError ? err.code : classify(err);
  switch (code) {
    case 'disk-full':
      return 'disk full';
    case 'read-only':
      return 'database read-only';
    case 'busy':
      return 'database locked by another process';
    case 'corrupt':
      return 'database damaged';
    case 'io':
      return 'I/O error';
    default:
      return err instanceof Error ? err.message.split('\n')[0].slice(0, 200) : String(err ?? 'unknown error');
  }
}

/** Runs `fn`, rethrowing known SQLite/filesystem errors as StoreErrors about `path`. */
export function guarded<T>(path: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw translateError(err, path);
  }
}
