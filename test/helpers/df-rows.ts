/**
 * Decodes a run's dataframe result (ResultValue 'table': Arrow IPC, base64) into plain rows for
 * assertions: Int64 bigints as numbers, dictionary strings as strings, timestamps as ms.
 */
import type { ResultValue } from '../../common/results';
import { fromIPC } from '../../worker/kernels/df/index';

export type Row = Record<string, number | string | boolean | null>;

export function rowsOf(v: ResultValue | undefined): Row[] {
  if (!v || v.kind !== 'table') throw new Error(`expected a table result, got ${v ? v.kind : 'nothing'}`);
  const t = fromIPC(Buffer.from(v.ipc, 'base64'));
  const names = t.schema.fields.map((f) => f.name);
  const cols = names.map((n) => t.getChild(n)!);
  const out: Row[] = [];
  for (let i = 0; i < t.numRows; i++) {
    const r: Row = {};
    names.forEach((n, j) => {
      const x = cols[j].get(i) as unknown;
      r[n] = x === null || x === undefined ? null : typeof x === 'bigint' ? Number(x) : x instanceof Date ? x.getTime() : (x as number | string | boolean);
    });
    out.push(r);
  }
  return out;
}
