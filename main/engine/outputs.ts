/**
 * A node's result from its output tasks' values: the one place that turns fetched ChunkValues
 * into what a run reports, for local runs (run.ts fetches from the workers) and Dask runs
 * (main/dask/run.ts takes them from the bridge's result), so both get the same values and digest.
 */
import type { ChunkValue, NumericArray } from '../../common/arrays';
import type { ResultValue } from '../../common/results';
import type { NodeOutput } from '../../common/tasks';
import { summaryFromBundle } from './compile/summary-lower';
import { assembleArray, digitsOf } from './results';

/** The keys whose values `outputValue` reads for `out`. */
export function outputKeys(out: NodeOutput): string[] {
  return out.kind === 'array' || out.kind === 'table' || out.kind === 'values' ? out.keys : [out.key];
}

let tableModule: Promise<typeof import('./table-result')> | undefined;

export async function outputValue(out: NodeOutput, fetch: (key: string) => Promise<ChunkValue>): Promise<ResultValue> {
  if (out.kind === 'scalar') {
    const v = await fetch(out.key);
    if (v.kind !== 'array') throw new Error(`output ${out.key} is a ${v.kind}, expected a value`);
    return { ...scalarResult(out.dtype, v.array.data), ...digitsOf(out) };
  }
  if (out.kind === 'array') {
    const blocks = await Promise.all(out.keys.map((k) => fetch(k)));
    return assembleArray(out, blocks);
  }
  if (out.kind === 'table') {
    // Apache Arrow loads with the first table result, not with the engine (start-up); the module
    // is asked for once: a dynamic import per run went through the loader each time (under tsx, a
    // round trip to its hooks' thread: about 1 ms of every table run's end).
    tableModule ??= import('./table-result');
    const [{ tableResult }, parts] = await Promise.all([tableModule, Promise.all(out.keys.map((k) => fetch(k)))]);
    return tableResult(out, parts);
  }
  if (out.kind === 'values') return { kind: 'json', value: (await Promise.all(out.keys.map((k) => fetch(k)))).map((v) => (v.kind === 'json' ? v.value : { kind: v.kind })) };
  const v = await fetch(out.key);
  if (out.kind === 'array-summary') {
    if (v.kind !== 'arrays') throw new Error(`output ${out.key} is a ${v.kind}, expected a summary bundle`);
    return { kind: 'array', dtype: out.dtype, shape: out.shape, summary: summaryFromBundle(v.arrays), ...digitsOf(out) };
  }
  return v.kind === 'json' ? { kind: 'json', value: v.value } : { kind: 'json', value: { kind: v.kind } };
}

/** A scalar output's result from its value's data. An int64 beyond 2**53 has no exact JSON number: its digits go along as text. */
export function scalarResult(dtype: string, data: NumericArray): ResultValue {
  const x = data[0];
  if (typeof x !== 'bigint') return { kind: 'scalar', dtype, value: x };
  const value = Number(x);
  return { kind: 'scalar', dtype, value, ...(BigInt(value) === x ? {} : { exact: x.toString() }) };
}
