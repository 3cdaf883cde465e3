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

/**
 * resample's calendar periods, as pandas 1.5 labels them (bins are whole UTC days): 'W' (or
 * 'W-SUN') the week ending on Sunday, labelled by that Sunday; 'M' (or 'ME') the month, labelled
 * by its last day; 'MS' the month, labelled by its first day.
 */
export type Calendar = 'W' | 'M' | 'MS';
const CALENDARS: Record<string, Calendar> = { W: 'W', 'W-SUN': 'W', M: 'M', ME: 'M', MS: 'MS' };
const DAY = 86400000;

export function calendarOf(freq: string): Calendar | null {
  return Object.prototype.hasOwnProperty.call(CALENDARS, freq) ? CALENDARS[freq] : null;
}

/** The label (ms, midnight UTC) of the calendar period holding time `ms`. */
export function calendarLabel(ms: number, cal: Calendar): number {
  const day = Math.floor(ms / DAY);
  if (cal === 'W') return (day + (6 - ((((day + 3) % 7) + 7) % 7))) * DAY; // 1970-01-01 was a Thursday (Monday 0)
  const d = new Date(day * DAY);
  return cal === 'M' ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0) : Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** The label of the period after the one labelled `label`. */
export function calendarNext(label: number, cal: Calendar): number {
  if (cal === 'W') return label + 7 * DAY;
  const d = new Date(label);
  return cal === 'M' ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 2, 0) : Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}
