/**
 * Glob expansion for file sources: `*` and `?` within one path segment, `**` across segments,
 * `[abc]` classes. Results are sorted, as dask sorts them, so partition i is the same file on
 * every run. (Node 20 has no fs.glob; this is the small subset the sources need.)
 */
import { readdirSync, statSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';

function segmentRegex(glob: string): string {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const close = glob.indexOf(']', i + 1);
      if (close < 0) re += '\\[';
      else {
        re += `[${glob.slice(i + 1, close).replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else re += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return re;
}

function hasMagic(s: string): boolean {
  return /[*?[]/.test(s);
}

/** Files matching `pattern` (absolute or relative to cwd), sorted; a plain path matches itself. */
export function expandGlob(pattern: string): string[] {
  const abs = resolve(pattern).split(sep).join('/');
  if (!hasMagic(abs)) {
    try {
      return statSync(abs).isFile() ? [abs] : [];
    } catch {
      return [];
    }
  }
  const parts = abs.split('/');
  const firstMagic = parts.findIndex(hasMagic);
  const base = parts.slice(0, firstMagic).join('/') || '/';
  const rest = parts.slice(firstMagic);
  const re = new RegExp(
    '^' + rest.map((p) => (p === '**' ? '(?:.*/)?' : segmentRegex(p) + '/')).join('').replace(/\/$/, '').replace(/\(\?:\.\*\/\)\?$/, '.*') + '$',
  );
  let entries: string[];
  try {
    entries = readdirSync(base, { recursive: rest.length > 1, encoding: 'utf8' });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const e of entries) {
    const rel = e.split(sep).join('/');
    if (!re.test(rel)) continue;
    const full = join(base, rel);
    try {
      if (statSync(full).isFile()) out.push(full);
    } catch {
      // vanished between listing and stat: not a match
    }
  }
  return out.sort();
}
