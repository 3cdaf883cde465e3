/**
 * The warm pool's address book: a running `gpuflow serve` writes where it listens, its token and
 * the worker set it started into `<database>.serve.json` (mode 0600, beside the store it records
 * runs in), and removes it when it stops. `gpuflow run` reads the file of the database it would
 * use itself (main/cli/attach.ts) and, when the pool is the one it would start, hands its run to
 * that server instead of starting workers.
 *
 * Trust: the file carries the token, so it is created 0600 and read only when it is still 0600
 * and owned by this user; a file naming a dead pid (a serve that was killed) is ignored, as is
 * one that does not parse. The serve that wrote a file removes it only while it still names it
 * (a second serve on the same database took it over).
 */
import { chmodSync, closeSync, constants, fstatSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
// zod/mini: an attached `gpuflow run` reads this file first, and mini's part of zod loads in about
// a third of the time of the full API's (bench/startup/attach.mjs; docs/performance.md).
import * as z from 'zod/mini';

export const SERVE_FILE_FORMAT = 'gpuflow.serve/1';

const serveFileSchema = z.object({
  format: z.literal(SERVE_FILE_FORMAT),
  pid: z.number().check(z.int(), z.positive()),
  /** Loopback origin to reach the API at, e.g. http://127.0.0.1:7077. */
  origin: z.string().check(z.regex(/^http:\/\/(127\.0\.0\.1|\[::1\]):\d+$/)),
  token: z.string().check(z.minLength(16)),
  /** The pool's identity (workerPoolKey): a run attaches only to the pool it would have started. */
  pool: z.string(),
  /** serve's working directory and allowed folders: relative paths in a workflow mean the same there only when these match. */
  cwd: z.string(),
  allowedDirs: z.nullable(z.string()),
});

export type ServeFile = z.infer<typeof serveFileSchema>;

/** The loopback origin a client on this machine uses for a server bound to `host`:`port`. */
export function loopbackOrigin(host: string, port: number): string | null {
  if (host === '127.0.0.1' || host === '0.0.0.0' || host === 'localhost') return `http://127.0.0.1:${port}`;
  if (host === '::1' || host === '::') return `http://[::1]:${port}`;
  return null;
}

/**
 * Writes the file atomically (a 0600 temporary renamed over it), so a reader never sees half a
 * token and the token is never readable by others, even for a moment.
 */
export function writeServeFile(path: string, f: Omit<ServeFile, 'format'>): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ format: SERVE_FILE_FORMAT, ...f }) + '\n', { mode: 0o600, flag: 'w' });
  // An existing temporary keeps its mode through writeFileSync: set it again.
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

/** Removes the file if it still names `pid` (another serve may have taken the database over). */
export function removeServeFile(path: string, pid: number = process.pid): void {
  const f = readServeFile(path, { checkAlive: false });
  if (f.file?.pid !== pid) return;
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but is another user's (not our serve, which runs as us; treat as alive and let the connection decide).
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The file's contents, or why it is not usable (`skip`: null when there is simply no file, which
 * is the usual case, or a stale one: neither is worth a message).
 */
export function readServeFile(path: string, opts: { checkAlive?: boolean } = {}): { file: ServeFile | null; skip: string | null } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { file: null, skip: code === 'ENOENT' ? null : `cannot open ${path}: ${code ?? String(e)}` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { file: null, skip: `${path} is not a regular file` };
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return { file: null, skip: `${path} belongs to another user` };
    if ((st.mode & 0o077) !== 0) return { file: null, skip: `${path} is readable by others (mode ${(st.mode & 0o777).toString(8)}), so its token is not trusted` };
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(fd, 'utf8'));
    } catch {
      return { file: null, skip: `${path} is not JSON` };
    }
    const r = serveFileSchema.safeParse(parsed);
    if (!r.success) return { file: null, skip: `${path} is not a serve file of this version` };
    // A serve that did not stop cleanly (killed): nothing to say, the next serve overwrites it.
    if (opts.checkAlive !== false && !pidAlive(r.data.pid)) return { file: null, skip: null };
    return { file: r.data, skip: null };
  } finally {
    closeSync(fd);
  }
}
