/**
 * Decodes a run's dataframe result (ResultValue 'table': Arrow IPC, base64) into plain rows for
 * assertions: Int64 bigints as numbers (as decimal text beyond 2^53, where a number would round:
 * pandas' fixtures write those the same way), dictionary strings as strings, timestamps as ms.
 */
import type { ResultValue } from '../../common/results';
import { fromIPC } from '../../worker/kernels/df/index';

/** 2^53: the largest magnitude every integer up to which a number holds exactly. */
const MAX_EXACT = 2n ** 53n;

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
      r[n] = x === null || x === undefined ? null : typeof x === 'bigint' ? (x <= MAX_EXACT && x >= -MAX_EXACT ? Number(x) : String(x)) : x instanceof Date ? x.getTime() : (x as number | string | boolean);
    });
    out.push(r);
  }
  return out;
}
