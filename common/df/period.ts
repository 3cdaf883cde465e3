/** resample's periods (worker/kernels/df/resample.ts): a pandas offset alias in milliseconds, checked while main compiles, without Apache Arrow. */
const UNITS: Record<string, number> = { ms: 1, s: 1000, min: 60000, T: 60000, h: 3600000, H: 3600000, D: 86400000 };

/** Milliseconds of a fixed pandas offset alias like '2h', '90min', '3D' (rolling's time windows); `what` starts the error. */
export function durationMs(freq: string, what: string): number {
  const m = /^(\d*)(ms|s|min|T|h|H|D)$/.exec(freq);
  if (!m) throw new Error(`${what} '${freq}' is not a period like '1D', '6h', '30min', '15s' or '500ms'`);
  const ms = (m[1] === '' ? 1 : Number(m[1])) * UNITS[m[2]];
  if (ms <= 0) throw new Error(`${what} '${freq}' must be longer than 0`);
  return ms;
}

/** Milliseconds of a pandas offset alias like '1D', '6h', '30min', '15s' (one that divides a day). */
export function periodMs(freq: string): number {
  const ms = durationMs(freq, 'resample: freq');
  if (86400000 % ms !== 0) throw new Error(`resample: freq '${freq}' must divide a day (bins start at midnight)`);
  return ms;
}
