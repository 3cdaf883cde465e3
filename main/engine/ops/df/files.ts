/**
 * File patterns of the dataframe readers, expanded at compile time so the graph names its files.
 * Only `*` (any run of characters within one name) and `?` (one character) are special; the
 * pattern is split into path segments and each wildcard segment is matched by a small
 * backtracking matcher over the directory listing (no regular expression is built from the
 * user's text). As in shells and dask, a wildcard does not match a leading dot. The pattern and
 * every file it matches go through checkPath, so a symlink cannot lead outside the allowed folders.
 */
import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { MAX_SOURCE_PARTITIONS } from '../../compile/limits';
import { checkPath, refuseNonRegular } from '../../paths';
import type { BuildContext } from '../types';

const isMagic = (s: string) => s.includes('*') || s.includes('?');

/** Whether `name` matches the one-segment pattern `pat` (`*` and `?` only). */
export function matchSegment(pat: string, name: string): boolean {
  if ((pat[0] === '*' || pat[0] === '?') && name.startsWith('.')) return false;
  let p = 0;
  let n = 0;
  let star = -1;
  let mark = 0;
  while (n < name.length) {
    if (p < pat.length && (pat[p] === '?' || pat[p] === name[n])) {
      p++;
      n++;
    } else if (p < pat.length && pat[p] === '*') {
      star = p++;
      mark = n;
    } else if (star >= 0) {
      p = star + 1;
      n = ++mark;
    } else return false;
  }
  while (p < pat.length && pat[p] === '*') p++;
  return p === pat.length;
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Files matching the checked absolute pattern, sorted (partition i is the same file every run). */
export function expandPattern(abs: string): string[] {
  const parts = abs.split(sep);
  let dirs = [parts[0] === '' ? sep : parts[0]];
  for (let i = 1; i < parts.length; i++) {
    const seg = parts[i];
    if (seg === '') continue;
    const next: string[] = [];
    for (const d of dirs) {
      if (!isMagic(seg)) next.push(join(d, seg));
      else for (const e of listDir(d).sort()) if (matchSegment(seg, e)) next.push(join(d, e));
    }
    dirs = next;
  }
  return dirs.filter(isFile).sort();
}

/** The files of the path-or-pattern param `field`, each checked; fails when none match. */
export function patternFiles(ctx: BuildContext, field: string, what: string): string[] {
  const raw = ctx.params[field.replace(/^params\./, '')];
  const pattern = checkPath(raw, field, ctx);
  // checkPath realpaths the existing prefix; the wildcard part stays as written. A plain path to
  // a FIFO, device or folder is named as such (a glob simply does not match them).
  if (!isMagic(pattern)) refuseNonRegular(pattern, field, ctx);
  const matched = expandPattern(pattern);
  // One task per file at least: bounded before each is checked and opened.
  if (matched.length > MAX_SOURCE_PARTITIONS) return ctx.fail(field, `${pattern} matches ${matched.length} files, more than ${MAX_SOURCE_PARTITIONS}`);
  const files = matched.map((f) => checkPath(f, field, ctx));
  if (files.length === 0) {
    const hint = isMagic(basename(pattern)) ? `no file in ${dirname(pattern)} matches ${basename(pattern)}` : `${pattern} is not a file`;
    return ctx.fail(field, `${hint} (${what})`);
  }
  return files;
}
