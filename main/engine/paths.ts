/**
 * User-supplied file paths (load_npy, save_npy): parsed and checked against the allowed folders,
 * never evaluated. A path is resolved against the working directory, its longest existing prefix
 * goes through realpath (so a symlink inside an allowed folder cannot point outside it), the
 * missing rest is appended as plain names, and the result must lie inside one allowed root.
 * Callers use the returned path, not the user's text, so what is opened is what was checked.
 *
 * Files a workflow reads at validation are opened only through `openChecked` (common/safe-files.ts
 * openRegularFile): lstat, then O_NONBLOCK, then fstat, so a FIFO, device, socket or folder is
 * refused naming the param instead of blocking main's thread in open(2) (issue 29.1).
 *
 * Allowed roots: GPUFLOW_ALLOWED_DIRS (':'-separated), default the working directory and the OS
 * temp folder. Roots are realpath'd too, so /tmp -> /private/tmp style links still match.
 */
import { closeSync, existsSync, lstatSync, realpathSync } from 'node:fs';
import { FileKindError, kindOf, openRegularFile } from '../../common/safe-files';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';

/** The part of a BuildContext this module needs (tests can pass a stub). */
export interface PathContext {
  fail(field: string, detail: string): never;
}

function real(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    return resolve(p);
  }
}

export function allowedRoots(): string[] {
  const env = process.env.GPUFLOW_ALLOWED_DIRS;
  const raw = env && env.trim() ? env.split(':').filter((s) => s.trim() !== '') : [process.cwd(), tmpdir()];
  return [...new Set(raw.map((r) => real(resolve(r))))];
}

/** Realpath of the longest existing prefix of an absolute, normalised path, plus the missing rest. */
function resolveExistingPrefix(abs: string): string {
  const rest: string[] = [];
  let cur = abs;
  while (!existsSync(cur)) {
    const parent = dirname(cur);
    if (parent === cur) break;
    rest.unshift(cur.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
    cur = parent;
  }
  return rest.length ? join(real(cur), ...rest) : real(cur);
}

function inside(p: string, root: string): boolean {
  return p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * The checked, resolved form of the user's path `p`, or a failure on `field` (e.g.
 * 'params.path') that names the allowed folders.
 */
export function checkPath(p: unknown, field: string, ctx: PathContext): string {
  if (typeof p !== 'string' || p.trim() === '') return ctx.fail(field, 'must be a file path');
  if (p.includes('\0')) return ctx.fail(field, 'must not contain NUL characters');
  const abs = resolve(isAbsolute(p) ? p : join(process.cwd(), p));
  const resolved = resolveExistingPrefix(abs);
  const roots = allowedRoots();
  if (!roots.some((r) => inside(resolved, r))) {
    const via = resolved !== abs ? ` (it resolves to ${resolved})` : '';
    return ctx.fail(field, `${p}${via} is outside the allowed folders: ${roots.join(', ')}; set GPUFLOW_ALLOWED_DIRS (':'-separated) to allow others`);
  }
  return resolved;
}

/**
 * The checked path `path` opened for reading with its size, or a failure on `field` naming what
 * it is (a FIFO, a device, a folder...) or why it cannot be opened. The caller closes fd.
 */
export function openChecked(path: string, field: string, ctx: PathContext): { fd: number; size: number } {
  try {
    return openRegularFile(path);
  } catch (e) {
    if (e instanceof FileKindError) return ctx.fail(field, e.message);
    return ctx.fail(field, `cannot open ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
}

/** The size of the checked regular file `path`, or a failure on `field` (see openChecked). */
export function checkedFileSize(path: string, field: string, ctx: PathContext): number {
  const { fd, size } = openChecked(path, field, ctx);
  closeSync(fd);
  return size;
}

/** Fails on `field` when `path` exists but is not a regular file (a FIFO, device, socket, folder). */
export function refuseNonRegular(path: string, field: string, ctx: PathContext): void {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return; // missing: the caller says so in its own words
  }
  if (!st.isFile()) ctx.fail(field, `${path} is ${kindOf(st)}, not a regular file`);
}
