/**
 * What differs between two runs, for the history's side-by-side view. Pure.
 *
 * Differences are listed by path. Arrays whose items are all objects with a string `id` (workflow
 * nodes) are matched by id (`nodes[id=gen].params.n`), so inserting a node does not report every
 * later node as changed; other arrays are compared by index. Node positions are left out (layout,
 * not computation). Results are compared after the digest's rounding, so float noise that the
 * digest tolerates is not listed either.
 */
import { roundSignificant } from '../../common/canonical-json';
import { DIGEST_SIGNIFICANT_DIGITS } from '../../common/digest';
import type { JsonDifference, JsonValue, RunComparison, RunRecord } from '../../common/store-types';
import type { WorkflowDoc } from '../../common/workflow';

type Json = JsonValue | undefined;

function isObject(v: Json): v is { [k: string]: JsonValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function keyedById(v: JsonValue[]): Map<string, JsonValue> | undefined {
  const map = new Map<string, JsonValue>();
  for (const item of v) {
    if (!isObject(item) || typeof item.id !== 'string' || map.has(item.id)) return undefined;
    map.set(item.id, item);
  }
  return map;
}

function numbersEqual(a: number, b: number, digits: number | undefined): boolean {
  if (digits === undefined) return Object.is(a, b) || a === b;
  return roundSignificant(a, digits) === roundSignificant(b, digits);
}

function childPath(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? (path ? `${path}.${key}` : key) : `${path}[${JSON.stringify(key)}]`;
}

/** Paths where `a` and `b` differ; numbers compared to `digits` significant digits when given. */
export function jsonDiff(a: Json, b: Json, options: { digits?: number; path?: string } = {}): JsonDifference[] {
  const out: JsonDifference[] = [];
  walk(a, b, options.path ?? '', options.digits, out);
  return out;
}

function walk(a: Json, b: Json, path: string, digits: number | undefined, out: JsonDifference[]): void {
  if (typeof a === 'number' && typeof b === 'number') {
    if (!numbersEqual(a, b, digits)) out.push({ path, a, b });
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const ka = keyedById(a);
    const kb = ka && keyedById(b);
    if (ka && kb && a.length + b.length > 0) {
      for (const id of new Set([...ka.keys(), ...kb.keys()])) walk(ka.get(id), kb.get(id), `${path}[id=${id}]`, digits, out);
      return;
    }
    for (let i = 0; i < Math.max(a.length, b.length); i++) walk(a[i], b[i], `${path}[${i}]`, digits, out);
    return;
  }
  if (isObject(a) && isObject(b)) {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) walk(a[k], b[k], childPath(path, k), digits, out);
    return;
  }
  if (a !== b) out.push({ path, a, b });
}

function withoutPositions(doc: WorkflowDoc): JsonValue {
  return { ...doc, nodes: doc.nodes.map(({ position: _layout, ...node }) => node) } as unknown as JsonValue;
}

export interface RunDetail {
  run: RunRecord;
  workflow: WorkflowDoc;
}

function duration(r: RunRecord): number | null {
  return r.ended === null ? null : r.ended - r.started;
}

export function compareRuns(a: RunDetail, b: RunDetail): RunComparison {
  const aMs = duration(a.run);
  const bMs = duration(b.run);
  return {
    sameWorkflow: a.run.workflowHash === b.run.workflowHash,
    workflow: jsonDiff(withoutPositions(a.workflow), withoutPositions(b.workflow)),
    params: jsonDiff(a.run.params, b.run.params),
    seeds: jsonDiff(a.run.seeds, b.run.seeds),
    devices: jsonDiff(a.run.devices, b.run.devices),
    backends: jsonDiff(a.run.backends, b.run.backends),
    times: { aMs, bMs, ratio: aMs !== null && bMs !== null && aMs > 0 ? bMs / aMs : null },
    sameDigest: a.run.resultDigest !== null && a.run.resultDigest === b.run.resultDigest,
    results: jsonDiff(a.run.results, b.run.results, { digits: DIGEST_SIGNIFICANT_DIGITS }),
    status: { a: a.run.status, b: b.run.status },
  };
}
