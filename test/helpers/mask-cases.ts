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


/**
 * Writes x (seeded normal values of `shape`, `dtype`) as x.npy and NumPy's answers for
 * s = x[..., m] along `axis` with m = (x summed over every other axis) > t: s itself (its shape,
 * C-order values), s.sum(), s.mean(), s.min(), s * 2 + 1, and along one axis (raveled, NaN as
 * null) s.sum(axis=0), s.mean(axis=-1), s.max(axis=k) with k the axis after the mask's and
 * (s > 0).sum(axis=-1) (int64 counts), as JSON.
 */
export function axisMaskFixture(shape: number[], dtype: string, axis: number, t: number): { path: string; want: Record<string, number | number[] | string | null> } {
  const dir = mkdtempSync(join(tmpdir(), 'gpuflow-mask-axis-'));
  const path = join(dir, 'x.npy');
  const script = `
import json, sys, numpy as np
shape, dtype, axis, t, path = json.loads(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
x = (np.random.default_rng(11).normal(0, 3, shape)).astype(dtype)
np.save(path, x)
others = tuple(d for d in range(x.ndim) if d != axis % x.ndim)
m = x.sum(axis=others) > t
s = x[(slice(None),) * (axis % x.ndim) + (m,)]
f = lambda v: float(v) if s.size else None
print(json.dumps({"shape": list(s.shape), "s": s.ravel().tolist(), "dtype": str(s.dtype), "sum": float(s.sum()), "sumDtype": str(s.sum().dtype), "mean": f(s.mean()) if s.size else None, "min": f(s.min()) if s.size else None, "affine": (s * 2 + 1).ravel().tolist(), "affineDtype": str((s * 2 + 1).dtype),
  "sum0": s.sum(axis=0).ravel().tolist(), "meanLast": [None if np.isnan(v) else float(v) for v in s.mean(axis=-1).ravel()], "maxNext": s.max(axis=(axis + 1) % x.ndim).ravel().tolist(), "maxNextShape": list(s.max(axis=(axis + 1) % x.ndim).shape),
  "countLast": (s > 0).sum(axis=-1).ravel().tolist(), "countDtype": str((s > 0).sum(axis=-1).dtype)}))
`;
  const out = execFileSync('/usr/bin/python3', ['-W', 'ignore', '-c', script, JSON.stringify(shape), dtype, String(axis), String(t), path], { encoding: 'utf8' });
  return { path, want: JSON.parse(out) as Record<string, number | number[] | string | null> };
}

/** x[..., m] along `axis` (m from x in the graph, as the fixture builds it) and what consumes it (the fixture's names), each a sink; min only where the selection is not empty. */
export function axisMaskDoc(path: string, chunks: number[], axis: number, t: number, withMin = true): unknown {
  const nd = chunks.length;
  const others = [...Array(nd).keys()].filter((d) => d !== (axis + nd) % nd);
  const nodes: GraphNode[] = [
    ['x', 'load_npy', { path, chunks }],
    ['ms', 'reduce', { op: 'sum', axes: others }],
    ['c', 'scalar_op', { op: 'gt', value: t, value_kind: 'float' }],
    ['m', 'mask_select', { axis }],
    ['out', 'astype', { dtype: 'float64' }],
    ['sum', 'reduce', { op: 'sum' }],
    ['mean', 'reduce', { op: 'mean' }],
    ...(withMin ? [['min', 'reduce', { op: 'min' }] as GraphNode] : []),
    ['m2', 'scalar_op', { op: 'mul', value: 2 }],
    ['affine', 'scalar_op', { op: 'add', value: 1 }],
    ['sum0', 'reduce', { op: 'sum', axis: 0 }],
    ['meanLast', 'reduce', { op: 'mean', axis: -1 }],
    ['maxNext', 'reduce', { op: 'max', axis: (axis + nd + 1) % nd }],
    ['pos', 'scalar_op', { op: 'gt', value: 0 }],
    ['countLast', 'reduce', { op: 'sum', axis: -1 }],
  ];
  return graph(nodes, [
    ['m', 'sum0', 'x'], ['m', 'meanLast', 'x'], ['m', 'maxNext', 'x'], ['m', 'pos', 'x'], ['pos', 'countLast', 'x'],
    ['x', 'ms', 'x'], ['ms', 'c', 'x'], ['x', 'm', 'x'], ['c', 'm', 'mask'],
    ['m', 'out', 'x'], ['m', 'sum', 'x'], ['m', 'mean', 'x'], ...(withMin ? [['m', 'min', 'x'] as [string, string, string]] : []), ['m', 'm2', 'x'], ['m2', 'affine', 'x'],
  ]);
}
