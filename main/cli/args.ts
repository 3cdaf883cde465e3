/** Command-line options shared by the commands (node:util parseArgs, strict). */
import { parseArgs } from 'node:util';

export const OPTIONS = {
  json: { type: 'boolean', default: false },
  'virtual-gpus': { type: 'string' },
  'cpu-workers': { type: 'string' },
  threads: { type: 'string' },
  param: { type: 'string', multiple: true },
  backend: { type: 'string' },
  db: { type: 'string' },
  'no-store': { type: 'boolean', default: false },
  host: { type: 'string' },
  port: { type: 'string' },
  token: { type: 'string' },
  repeat: { type: 'string' },
  warmup: { type: 'string' },
  status: { type: 'string' },
  workflow: { type: 'string' },
  limit: { type: 'string' },
  sort: { type: 'string' },
  out: { type: 'string' },
  benchmarks: { type: 'boolean', default: false },
  'no-gpus': { type: 'boolean', default: false },
  'no-attach': { type: 'boolean', default: false },
  dask: { type: 'string' },
  'dask-wait': { type: 'string' },
  'dask-tls-ca': { type: 'string' },
  'dask-tls-cert': { type: 'string' },
  'dask-tls-key': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export type Parsed = ReturnType<typeof parseCli>;

export function parseCli(argv: string[]) {
  return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
}

export class UsageError extends Error {}

export function intOption(v: string | undefined, name: string, min = 0): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < min) throw new UsageError(`--${name} must be an integer >= ${min}, got '${v}'`);
  return Number(v);
}

/** --param N=4000 --param name=text: numbers and booleans are typed, the rest are strings. */
export function paramOverrides(list: string[] | undefined): Record<string, number | string | boolean> {
  const out: Record<string, number | string | boolean> = {};
  for (const p of list ?? []) {
    const eq = p.indexOf('=');
    if (eq <= 0) throw new UsageError(`--param takes NAME=VALUE, got '${p}'`);
    const k = p.slice(0, eq);
    const v = p.slice(eq + 1);
    out[k] = /^-?\d+(\.\d+)?(e-?\d+)?$/i.test(v) ? Number(v) : v === 'true' ? true : v === 'false' ? false : v;
  }
  return out;
}

/** A positive number of seconds (--dask-wait 30, 2.5). */
export function secondsOption(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+(\.\d+)?$/.test(v) || Number(v) <= 0 || Number(v) > 86_400) throw new UsageError(`--${name} must be a number of seconds in (0, 86400], got '${v}'`);
  return Number(v);
}
