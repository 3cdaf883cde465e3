/** What the store keeps of a run's result: a digest over its values, and a summary without bulk data. */
import { resultDigest } from '../../common/digest';
import type { RunResult } from '../../common/results';
import type { JsonValue } from '../../common/store-types';
import { fromIPC } from '../../worker/kernels/df/ipc';
import { tableContent } from '../../worker/kernels/df/content';

/** The part of a result kept in the store: array data is left out, summaries kept. */
export function storedResults(r: RunResult): JsonValue {
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(r.results)) {
    if (v.kind === 'array') out[k] = { kind: 'array', dtype: v.dtype, shape: v.shape, summary: (v.summary ?? null) as unknown as JsonValue };
    else out[k] = v as unknown as JsonValue;
  }
  return out;
}

/**
 * The values a digest covers: every scalar and every array element returned (or its summary); for
 * a table its row count and the logical content of its preview (schema and values), never its
 * Arrow IPC bytes, whose dictionary ids and chunking vary from process to process.
 */
export function digestOf(r: RunResult): string {
  const vals: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r.results)) {
    if (v.kind === 'scalar') vals[k] = v.value;
    else if (v.kind === 'array') vals[k] = { shape: v.shape, data: v.data ?? null, summary: v.data ? null : v.summary };
    else if (v.kind === 'table') vals[k] = { rows: v.rows, columns: v.columns, content: tableContent(fromIPC(Buffer.from(v.ipc, 'base64'))) };
    else vals[k] = v.value;
  }
  return resultDigest(vals);
}

