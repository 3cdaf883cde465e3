/** Fixture loading and table -> plain rows conversion shared by the dataframe tests. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Table } from 'apache-arrow';
import { expect } from 'vitest';
import { readCsv } from '../../../worker/kernels/df/csv';
import { fromIPC, toIPC } from '../../../worker/kernels/df/ipc';

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/df');
export type Row = Record<string, unknown>;

export const expected = JSON.parse(readFileSync(join(FIXTURES, 'expected.json'), 'utf8')) as Record<string, unknown>;

/** people.csv as the tests use it: start read as a timestamp. */
export function people(): Table {
  return readCsv({ path: join(FIXTURES, 'people.csv'), start: 0, end: null }, { types: { start: 'timestamp' } }).table;
}

/** Rows as plain objects: bigints as numbers, null for nulls. */
export function rows(t: Table): Row[] {
  return t.toArray().map((r) => {
    const o: Row = {};
    for (const [k, v] of Object.entries(r.toJSON() as Record<string, unknown>)) o[k] = typeof v === 'bigint' ? Number(v) : v;
    return o;
  });
}

export function column(t: Table, name: string): unknown[] {
  return rows(t).map((r) => r[name]);
}

/** Same rows, numbers equal to a relative 1e-9. */
export function expectRowsClose(actual: Row[], want: Row[], keys?: string[]): void {
  expect(actual.length).toBe(want.length);
  const ks = keys ?? Object.keys(want[0] ?? {});
  actual.forEach((a, i) => {
    for (const k of ks) {
      const w = want[i][k];
      const v = a[k];
      if (typeof w === 'number' && typeof v === 'number') {
        expect(Math.abs(v - w), `row ${i} column ${k}: ${v} vs ${w}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(w)));
      } else expect(v, `row ${i} column ${k}`).toEqual(w);
    }
  });
}

/**
 * `t` as a task in another process reads it: written to IPC and decoded from a copy of those bytes
 * (fromIPC of the very bytes this process wrote gives back `t` itself, worker/kernels/df/ipc.ts).
 */
export function wire(t: Table): Table {
  return fromIPC(toIPC(t).slice());
}
