/**
 * The store's errors: one class, a closed set of codes, and messages that name the file and say
 * what to do next. SQLite and filesystem errors are translated here, in one table, so every
 * caller (app, serve, CLI) shows the same sentence.
 */
import { dirname } from 'node:path';

export type StoreErrorCode =
  | 'read-only'
  | 'not-a-database'
  | 'disk-full'
  | 'newer-schema'
  | 'corrupt'
  | 'busy'
  | 'cannot-open'
  | 'invalid-import'
  | 'not-found'
  | 'io';

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
    `${p} is not a gpuflow database (not an SQLite file); it was left untouched. ` +
    `Choose another database file (CLI: --db <file>) or move this one aside.`,
  'disk-full': (p) =>
    `The disk holding ${p} is full: the last change was not saved; everything saved before is intact. ` +
    `Free some space and try again.`,
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
  return typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string'
    ? (err as { code: string }).code
    : '';
}

/** The store code for an SQLite (`SQLITE_*`) or filesystem (`E*`) error, if it is one we explain. */
export function classify(err: unknown): StoreErrorCode | undefined {
  const code = codeOf(err);
  if (code.startsWith('SQLITE_READONLY') || code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return 'read-only';
  if (code === 'SQLITE_NOTADB') return 'not-a-database';
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') return 'disk-full';
  if (code.startsWith('SQLITE_CORRUPT')) return 'corrupt';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'busy';
  if (code.startsWith('SQLITE_CANTOPEN') || code === 'EISDIR' || code === 'ENOTDIR') return 'cannot-open';
  if (code.startsWith('SQLITE_IOERR') || code === 'EIO') return 'io';
  return undefined;
}

/** `err` as a StoreError about `path` when it is a known SQLite/filesystem error; else `err` itself. */
export function translateError(err: unknown, path: string): unknown {
  if (err instanceof StoreError) return err;
  const code = classify(err);
  if (code === undefined || code === 'newer-schema' || code === 'invalid-import' || code === 'not-found') return err;
  return new StoreError(code, path, MESSAGES[code](path), { cause: err });
}

/** Runs `fn`, rethrowing known SQLite/filesystem errors as StoreErrors about `path`. */
export function guarded<T>(path: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw translateError(err, path);
  }
}
