/** What the store keeps of a run's result: a digest over its values, and a summary without bulk data. */
import { canonicalJson } from '../../common/canonical-json';
import { resultDigest } from '../../common/digest';
import type { RunResult } from '../../common/results';
import type { JsonValue } from '../../common/store-types';
import { searchResultForDigest } from '../../common/tuning/digest-view';

/** A table result's logical content (for the digest), once `loadTableDigests` has loaded Apache Arrow. */
let tableContentOf: ((ipcBase64: string) => unknown) | null = null;

/**
 * Loads what `digestOf` needs for table results: Apache Arrow, which a run without tables (and so
 * the CLI's start) does without.
 */
export async function loadTableDigests(): Promise<void> {
  if (tableContentOf) return;
  const [{ fromIPC }, { tableContent }] = await Promise.all([import('../../worker/kernels/df/ipc'), import('../../worker/kernels/df/content')]);
  tableContentOf = (b64) => tableContent(fromIPC(Buffer.from(b64, 'base64')));
}

/** `digestOf`, loading table support first when the run has a table result. */
export async function runDigest(r: RunResult): Promise<string> {
  if (Object.values(r.results).some((v) => v.kind === 'table')) await loadTableDigests();
  return digestOf(r);
}

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
 * `value` with its numbers rounded to `digits` significant digits (a float32-lineage result,
 * common/digest.ts), as canonical JSON reads back; unchanged without `digits`. Rounding again to
 * the digest's 10 digits keeps them.
 */
function fewerDigits(value: unknown, digits: number | undefined): unknown {
  return digits === undefined || value === null || value === undefined ? value : JSON.parse(canonicalJson(value, { digits }));
}

/**
 * The values a digest covers: every scalar and every array element returned (or its summary); for
 * a table its row count and the logical content of its preview (schema and values), never its
 * Arrow IPC bytes, whose dictionary ids and chunking vary from process to process. A run with a
 * table result needs `loadTableDigests()` first (`runDigest` does it).
 */
export function digestOf(r: RunResult): string {
  const vals: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r.results)) {
    if (v.kind === 'scalar') vals[k] = fewerDigits(v.value, v.digestDigits);
    else if (v.kind === 'array') vals[k] = { shape: v.shape, data: fewerDigits(v.data ?? null, v.digestDigits), summary: v.data ? null : fewerDigits(v.summary, v.digestDigits) };
    else if (v.kind === 'table') {
      if (!tableContentOf) throw new Error(`digestOf: result '${k}' is a table: call loadTableDigests() first`);
      vals[k] = { rows: v.rows, columns: v.columns, content: tableContentOf(v.ipc) };
    }
    // A tuning search's scores and metrics to TUNING_DIGEST_DIGITS (common/tuning/digest-view.ts).
    else vals[k] = searchResultForDigest(v.value);
  }
  return resultDigest(vals);
}

