/** Number and date formatting shared by the views: short, tabular, never epoch milliseconds. */

/** A number in at most ~7 significant digits; exponent form for very large or small magnitudes. */
export function formatNumber(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (Number.isInteger(x) && Math.abs(x) < 1e15) return x.toLocaleString('en-US');
  const a = Math.abs(x);
  if (a !== 0 && (a >= 1e7 || a < 1e-3)) return x.toExponential(3);
  return String(Number(x.toPrecision(7)));
}

/** A timestamp (ms since the epoch) as a local date and time, e.g. "2026-11-25 03:12:07". */
export function formatDate(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/**
 * A param value in words for a node card: shapes and chunks as "1000 × 500", lists of names as
 * "a, b", a group-by aggregation {column, agg} as "mean(x)", other objects as "k=v" pairs, so a
 * card never shows "[object Object]".
 */
export function paramText(v: unknown): string {
  if (Array.isArray(v)) return v.map(paramText).join(v.every((x) => typeof x === 'number') ? ' × ' : ', ');
  if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, unknown>;
    if (typeof o.agg === 'string' && typeof o.column === 'string') return `${o.agg}(${o.column})${typeof o.as === 'string' ? ` as ${o.as}` : ''}`;
    return Object.entries(o)
      .map(([k, x]) => `${k}=${paramText(x)}`)
      .join(' ');
  }
  return String(v);
}

/** A node's params as short "name value" pairs for the canvas (arrays joined, long text cut). */
export function keyParams(params: Record<string, unknown>, limit = 4): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(params)) {
    if (out.length >= limit) break;
    let s = paramText(v);
    if (s.length > 22) s = `${s.slice(0, 21)}…`;
    out.push([k, s]);
  }
  return out;
}
