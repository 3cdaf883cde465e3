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

/** A node's params as short "name value" pairs for the canvas (arrays joined, long text cut). */
export function keyParams(params: Record<string, unknown>, limit = 4): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(params)) {
    if (out.length >= limit) break;
    let s = Array.isArray(v) ? v.map((x) => String(x)).join(' × ') : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
    if (s.length > 22) s = `${s.slice(0, 21)}…`;
    out.push([k, s]);
  }
  return out;
}
