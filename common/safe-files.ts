/**
 * Opening and writing the files a workflow names, so that neither a file's kind nor a link
 * planted beside it can hurt serve (issue 29.1 and 29.3). Used by the compiler on main (the path
 * policy, main/engine/paths.ts) and by the workers' readers and writers, hence in common/.
 *
 * Reading: `openRegularFile` lstats first, so a FIFO, device, socket or folder is refused before
 * anything is opened (opening a FIFO for reading blocks in the kernel until a writer comes, and
 * main's thread with it); then opens with O_NONBLOCK | O_NOFOLLOW, so one swapped in after the
 * lstat cannot block either, and fstats what was opened: regular files only.
 *
 * Writing: `writeFileNoFollow` creates a fresh file under a random name with
 * O_CREAT | O_EXCL | O_NOFOLLOW in the target's folder, writes it, and renames it onto the
 * target. rename replaces a link at the target rather than following it, and O_EXCL never opens
 * anything that already exists, so nothing outside the folder is written or created whatever
 * links are planted. The folder itself must still resolve to the path that was checked
 * (`checkedFolder`): a link swapped in for it after the check is refused. `makeFolderNoFollow`
 * creates missing folders one level at a time and checks each the same way.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, realpathSync, renameSync, rmSync, writeSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** A path that exists but is not what the caller may read or write (a FIFO, a device, a link...). */
export class FileKindError extends Error {
  override name = 'FileKindError';
}

/** What `st` is, in words, for errors. */
export function kindOf(st: Stats): string {
  if (st.isFile()) return 'a regular file';
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/** Flags for reading a workflow's file: a FIFO cannot block the open, a link is not followed. */
export const NO_BLOCK_READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

/**
 * `path` opened for reading, with its size, if it is a regular file; else a FileKindError naming
 * what it is. Errors from the OS (ENOENT, EACCES) are thrown as they come. The caller closes fd.
 */
export function openRegularFile(path: string): { fd: number; size: number } {
  const before = lstatSync(path);
  if (!before.isFile()) throw new FileKindError(`${path} is ${kindOf(before)}, not a regular file`);
  let fd: number;
  try {
    fd = openSync(path, NO_BLOCK_READ_FLAGS);
  } catch (e) {
    // ELOOP: a link was swapped in after the lstat.
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw new FileKindError(`${path} became a symbolic link while being opened`);
    throw e;
  }
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    throw new FileKindError(`${path} is ${kindOf(st)}, not a regular file`);
  }
  return { fd, size: st.size };
}

/** The size of the regular file `path` (see openRegularFile). */
export function regularFileSize(path: string): number {
  const { fd, size } = openRegularFile(path);
  closeSync(fd);
  return size;
}

/** Fails unless `dir` still resolves to itself (no link in its place or above it since the check). */
function checkedFolder(dir: string): void {
  let real: string;
  try {
    real = realpathSync.native(dir);
  } catch (e) {
    throw new FileKindError(`cannot write in ${dir}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  if (real !== dir) throw new FileKindError(`${dir} now resolves to ${real}: a link was put in its place after it was checked; nothing written`);
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new FileKindError(`cannot write in ${dir}: it is ${kindOf(st)}`);
}

const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** A fresh name beside `file` that nobody can have planted (random, created with O_EXCL). */
function tempNameFor(file: string): string {
  return join(dirname(file), `.${basename(file)}.${randomBytes(8).toString('hex')}.tmp`);
}

export interface WriteOptions {
  /**
   * The folder of `file` is a path that was checked in its resolved form (the path policy's
   * answer): it must still resolve to itself. Off for paths the user picked in a dialog or on the
   * command line, which may legitimately pass through links.
   */
  checked?: boolean;
}

/** Writes `data` to `file` through a fresh temporary file and a rename (see the module comment). */
export function writeFileNoFollow(file: string, data: Uint8Array | string, opts: WriteOptions = {}): void {
  if (opts.checked ?? true) checkedFolder(dirname(file));
  const tmp = tempNameFor(file);
  const fd = openSync(tmp, WRITE_FLAGS, 0o644);
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
    closeSync(fd);
    renameSync(tmp, file);
  } catch (e) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    rmSync(tmp, { force: true });
    throw e;
  }
}

/**
 * Creates the folder `dir` (an absolute, checked path) and any missing parents, one level at a
 * time; each existing or created level must be a real folder resolving to itself, so a link
 * planted at any level (dangling or not) is refused and nothing is created through it.
 */
export function makeFolderNoFollow(dir: string): void {
  const missing: string[] = [];
  let cur = dir;
  for (;;) {
    try {
      lstatSync(cur);
      break;
    } catch {
      missing.unshift(cur);
      const parent = dirname(cur);
      if (parent === cur) break;
      cur = parent;
    }
  }
  checkedFolder(cur);
  for (const level of missing) {
    mkdirSync(level);
    checkedFolder(level);
  }
}
