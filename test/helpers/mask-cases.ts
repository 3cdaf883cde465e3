/**
 * x[x > t] against NumPy (issue 24 item 2): a seeded fixture with NumPy's answers, and the
 * workflow that selects and consumes it; shared by test/unit/engine/mask-select.test.ts (in
 * process) and test/integration/mask-select-workers.test.ts (worker processes).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { graph, type GraphNode } from './local-run';

/**
 * Writes x (seeded normal values of `shape`, `dtype`) as x.npy and NumPy's answers for
 * m = x[x > t]: m itself, m.sum(), m.mean(), m.std(), m.min(), (m * 2 + 1), as JSON.
 */
export function maskFixture(shape: number[], dtype: string, t: number): { path: string; want: Record<string, number | number[] | string> } {
  const dir = mkdtempSync(join(tmpdir(), 'gpuflow-mask-'));
  const path = join(dir, 'x.npy');
  const script = `
import json, sys, numpy as np
shape, dtype, t, path = json.loads(sys.argv[1]), sys.argv[2], float(sys.argv[3]), sys.argv[4]
x = (np.random.default_rng(7).normal(0, 3, shape)).astype(dtype)
np.save(path, x)
m = x[x > t]
f = lambda v: None if np.isnan(v) else float(v)
print(json.dumps({"m": m.tolist(), "dtype": str(m.dtype), "sum": f(m.sum()), "sumDtype": str(m.sum().dtype), "mean": f(m.mean()) if m.size else None, "std": f(m.std()) if m.size else None, "min": f(m.min()) if m.size else None, "affine": (m * 2 + 1).tolist(), "affineDtype": str((m * 2 + 1).dtype)}))
`;
  const out = execFileSync('/usr/bin/python3', ['-c', script, JSON.stringify(shape), dtype, String(t), path], { encoding: 'utf8' });
  return { path, want: JSON.parse(out) as Record<string, number | number[] | string> };
}

/** x[x > t] and what consumes it, each a sink; min only where the selection is not empty (`withMin`: NumPy raises there). */
export function maskDoc(path: string, chunks: number[], t: number, withMin = true): unknown {
  const nodes: GraphNode[] = [
    ['x', 'load_npy', { path, chunks }],
    ['c', 'scalar_op', { op: 'gt', value: t, value_kind: 'float' }],
    ['m', 'mask_select', {}],
    ['out', 'astype', { dtype: 'float64' }],
    ['sum', 'reduce', { op: 'sum' }],
    ['mean', 'reduce', { op: 'mean', axis: 0 }],
    ['std', 'reduce', { op: 'std' }],
    ...(withMin ? [['min', 'reduce', { op: 'min' }] as GraphNode] : []),
    ['m2', 'scalar_op', { op: 'mul', value: 2 }],
    ['affine', 'scalar_op', { op: 'add', value: 1 }],
  ];
  return graph(nodes, [
    ['x', 'c', 'x'], ['x', 'm', 'x'], ['c', 'm', 'mask'],
    ['m', 'out', 'x'], ['m', 'sum', 'x'], ['m', 'mean', 'x'], ['m', 'std', 'x'], ...(withMin ? [['m', 'min', 'x'] as [string, string, string]] : []), ['m', 'm2', 'x'], ['m2', 'affine', 'x'],
  ]);
}

