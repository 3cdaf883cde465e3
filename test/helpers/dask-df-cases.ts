/**
 * The dataframe cases adapted from dask/dataframe/tests (test/fixtures/df/dask/cases.json, made by
 * make_dask_cases.py with pandas): all of them as one workflow (one read_csv per input, then each
 * case's chain), and the comparison of a case's result with pandas' rows.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { ResultValue } from '../../common/results';
import { rowsOf, type Row } from './df-rows';

export interface DaskCase {
  name: string;
  dask_test: string;
  pandas: string;
  source: string;
  right: string | null;
  nodes: { op: string; params: Record<string, unknown> }[];
  compare: 'exact' | 'sorted';
  expected: Row[];
}

export const DASK_CASES = JSON.parse(readFileSync('test/fixtures/df/dask/cases.json', 'utf8')) as { sources: Record<string, { path: string; types?: Record<string, string> }>; cases: DaskCase[] };

/** The node id whose output is case `c`'s result. */
export function caseOutput(c: DaskCase): string {
  return `${c.name}_${c.nodes.length - 1}`;
}

/** One workflow running every case; CSV inputs read in `blocksize`-byte blocks (none: one partition per file). */
export function daskCasesWorkflow(blocksize?: number): unknown {
  const nodes: { id: string; op: string; params: Record<string, unknown> }[] = [];
  const edges: { source: string; sourcePort: string; target: string; targetPort: string }[] = [];
  const edge = (source: string, target: string, targetPort: string) => edges.push({ source, sourcePort: 'out', target, targetPort });
  const src: Record<string, string> = {};
  for (const [name, { path, types }] of Object.entries(DASK_CASES.sources)) {
    nodes.push({ id: `src_${name}`, op: 'read_csv', params: { path, ...(types ? { types } : {}), ...(blocksize ? { blocksize } : {}) } });
    src[name] = `src_${name}`;
    if (name === 'people') {
      // make_dask_cases.py drops the dates: pandas reads them as text, which no case needs.
      nodes.push({ id: 'people', op: 'drop', params: { columns: ['start'] } });
      edge('src_people', 'people', 'df');
      src[name] = 'people';
    }
  }
  for (const c of DASK_CASES.cases) {
    let prev = src[c.source];
    c.nodes.forEach((n, i) => {
      const id = `${c.name}_${i}`;
      nodes.push({ id, op: n.op, params: n.params });
      if (n.op === 'merge') {
        edge(prev, id, 'left');
        edge(src[c.right!], id, 'right');
      } else edge(prev, id, 'df');
      prev = id;
    });
  }
  return { format: 'gpuflow.workflow/1', nodes, edges };
}

function norm(v: unknown): unknown {
  return typeof v === 'number' && Number.isNaN(v) ? null : v;
}

function sortKey(r: Row, cols: string[]): string {
  return JSON.stringify(cols.map((c) => norm(r[c])));
}

/** Case `c`'s result equals pandas': same columns in order, same rows (numbers to 1e-9 relative). */
export function expectCase(c: DaskCase, result: ResultValue | undefined): void {
  const where = `${c.name} (${c.pandas}; dask ${c.dask_test})`;
  let actual = rowsOf(result);
  let want = c.expected;
  expect(actual.length, where).toBe(want.length);
  if (want.length === 0) return;
  const cols = Object.keys(want[0]);
  expect(Object.keys(actual[0]), where).toEqual(cols);
  if (c.compare === 'sorted') {
    const by = (a: Row, b: Row) => (sortKey(a, cols) < sortKey(b, cols) ? -1 : sortKey(a, cols) > sortKey(b, cols) ? 1 : 0);
    actual = [...actual].sort(by);
    want = [...want].sort(by);
  }
  want.forEach((w, i) => {
    for (const k of cols) {
      const a = norm(actual[i][k]);
      const e = w[k];
      if (typeof e === 'number' && typeof a === 'number' && !Number.isInteger(e)) expect(Math.abs(a - e), `${where}: row ${i} ${k}: ${a} vs ${e}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(e)));
      else expect(a, `${where}: row ${i} ${k}`).toEqual(e);
    }
  });
}
