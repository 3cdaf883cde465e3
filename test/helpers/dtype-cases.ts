/**
 * Seeded random dtype cases, Hypothesis-style: for each elementwise op (binary, array with a
 * Python scalar, unary, concatenate) and each reduction, random shapes, chunkings and dtypes, with
 * inputs written as .npy files and NumPy's answers computed by /usr/bin/python3
 * (test/helpers/dtype_oracle.py) in the test itself. All cases go into one workflow document
 * (node ids prefixed per case), so a backend and worker count is one run.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DType, NDArray } from '../../common/arrays';
import { allocate, sizeOf } from '../../common/arrays';
import { DTYPES } from '../../common/dtype-rules';
import { writeNpy } from '../../common/npy';
import type { ResultValue } from '../../common/results';
import { checkOutput, valuesOf } from './dask-array-cases';

const BINARY = ['add', 'sub', 'mul', 'div', 'pow', 'min', 'max', 'lt', 'ge', 'eq'] as const;
/** Array-with-array only (the binary node): NumPy's logical functions and ne. */
const BINARY_ONLY = ['logical_and', 'logical_or', 'logical_xor', 'ne'] as const;
const UNARY = ['neg', 'abs', 'exp', 'log', 'sqrt', 'sin', 'cos', 'tanh', 'square', 'isnan', 'isfinite', 'logical_not'] as const;
const REDUCE = ['sum', 'mean', 'min', 'max', 'var', 'std', 'argmin', 'argmax', 'any', 'all'] as const;
/**
 * Ops NumPy refuses on bools (bool - bool, -bool) or answers in a dtype the engine lacks (float16
 * for exp(bool), int8 for bool ** bool, square(bool), and NumPy 1.24's bool ** 2): such cases take
 * an int32 operand instead (the refusals have tests of their own).
 */
const NOT_OF_BOOLS = ['sub', 'pow', 'neg', 'exp', 'log', 'sqrt', 'sin', 'cos', 'tanh', 'square'];

export interface DtypeCase {
  name: string;
  kind: 'binary' | 'scalar' | 'unary' | 'concatenate' | 'reduce' | 'diff' | 'call';
  op: string;
  x: string;
  y?: string;
  value?: number;
  valueKind?: 'int' | 'float';
  reverse?: boolean;
  axis?: number | null;
  /** kind 'call': NumPy's answer is numpy.<fn>(x, **kwargs) (looked up by name, never evaluated). */
  fn?: string;
  kwargs?: Record<string, unknown>;
  /** The case's nodes (its inputs' load_npy and the op, whose id is `name`) and edges. */
  nodes: Array<{ id: string; op: string; params: Record<string, unknown> }>;
  edges: Array<{ source: string; sourcePort: string; target: string; targetPort: string }>;
}

/** mulberry32: a small seeded generator, so a failing case can be replayed from its seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const isInt = (d: DType) => d === 'int32' || d === 'int64';

/** Values an op can take without NumPy raising (int ** negative) or integers overflowing. */
function values(r: () => number, dtype: DType, n: number, small = false): NDArray['data'] {
  const a = allocate(dtype, n);
  for (let i = 0; i < n; i++) {
    const v = dtype === 'bool' ? (r() < 0.5 ? 1 : 0) : small ? Math.floor(r() * 4) : isInt(dtype) ? Math.floor(r() * 41) - 20 : Math.round((r() - 0.5) * 40000) / 1000;
    if (a instanceof BigInt64Array) a[i] = BigInt(v);
    else a[i] = v;
  }
  return a;
}

/**
 * `count` cases from `seed`, their inputs written under a new temporary folder; NumPy's answers
 * are computed there by the oracle. Returns the cases, the folder and NumPy's result dtypes.
 */
export function makeDtypeCases(seed: number, count: number): { cases: DtypeCase[]; dir: string; want: Record<string, string> } {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const dir = mkdtempSync(join(tmpdir(), 'gpuflow-dtypes-'));
  const cases: DtypeCase[] = [];
  const shapeOf = (minDim: number) => Array.from({ length: 1 + Math.floor(r() * 3) }, () => minDim + Math.floor(r() * (7 - minDim)));
  const chunksOf = (shape: number[]) => shape.map((s) => 1 + Math.floor(r() * Math.max(1, s)));
  const input = (name: string, dtype: DType, shape: number[], small = false): string => {
    const file = `${name}.npy`;
    writeFileSync(join(dir, file), writeNpy({ dtype, shape, data: values(r, dtype, sizeOf(shape), small) }));
    return file;
  };
  const load = (id: string, file: string, shape: number[]) => ({ id, op: 'load_npy', params: { path: join(dir, file), chunks: chunksOf(shape) } });
  const edge = (source: string, target: string, targetPort: string) => ({ source, sourcePort: 'out', target, targetPort });
  for (let k = 0; k < count; k++) {
    const name = `c${k}`;
    const kind = pick(['binary', 'binary', 'scalar', 'scalar', 'unary', 'concatenate', 'reduce', 'reduce', 'reduce'] as const);
    let dx = pick(DTYPES);
    if (kind === 'binary') {
      const op = pick([...BINARY, ...BINARY_ONLY]);
      let dy = pick(DTYPES);
      if (dx === 'bool' && dy === 'bool' && NOT_OF_BOOLS.includes(op)) dy = 'int32';
      const shape = shapeOf(1);
      // NumPy refuses an integer to a negative integer power: small non-negative exponents.
      const x = input(`${name}x`, dx, shape);
      const y = input(`${name}y`, dy, shape, op === 'pow');
      cases.push({ name, kind, op, x, y, nodes: [load(`${name}_x`, x, shape), load(`${name}_y`, y, shape), { id: name, op: 'binary', params: { op } }], edges: [edge(`${name}_x`, name, 'a'), edge(`${name}_y`, name, 'b')] });
    } else if (kind === 'scalar') {
      const op = pick(BINARY);
      if (dx === 'bool' && op === 'pow') dx = 'int32';
      const valueKind = pick(['int', 'float'] as const);
      const reverse = op !== 'pow' && r() < 0.3;
      const value = op === 'pow' ? (valueKind === 'int' ? 2 : 1.5) : valueKind === 'int' ? Math.floor(r() * 7) - 3 : Math.round((r() - 0.5) * 8000) / 1000;
      const shape = shapeOf(1);
      const x = input(`${name}x`, dx, shape);
      cases.push({ name, kind, op, x, value, valueKind, reverse, nodes: [load(`${name}_x`, x, shape), { id: name, op: 'scalar_op', params: { op, value, reverse, value_kind: valueKind } }], edges: [edge(`${name}_x`, name, 'x')] });
    } else if (kind === 'unary') {
      const op = pick(UNARY);
      if (dx === 'bool' && NOT_OF_BOOLS.includes(op)) dx = 'int32';
      const shape = shapeOf(1);
      const x = input(`${name}x`, dx, shape);
      cases.push({ name, kind, op, x, nodes: [load(`${name}_x`, x, shape), { id: name, op: 'unary', params: { op } }], edges: [edge(`${name}_x`, name, 'x')] });
    } else if (kind === 'concatenate') {
      const dy = pick(DTYPES);
      const shape = shapeOf(1);
      const axis = Math.floor(r() * shape.length);
      const shapeY = shape.map((s, d) => (d === axis ? 1 + Math.floor(r() * 5) : s));
      const x = input(`${name}x`, dx, shape);
      const y = input(`${name}y`, dy, shapeY);
      cases.push({ name, kind, op: 'concatenate', x, y, axis, nodes: [load(`${name}_x`, x, shape), load(`${name}_y`, y, shapeY), { id: name, op: 'concatenate', params: { axis } }], edges: [edge(`${name}_x`, name, 'x0'), edge(`${name}_y`, name, 'x1')] });
    } else {
      const op = pick(REDUCE);
      // An empty reduced axis only where NumPy has an identity (sum 0, mean NaN); min / arg* raise.
      const empty = (op === 'sum' || op === 'mean') && r() < 0.25;
      const shape = shapeOf(1);
      const axis = r() < 0.35 ? null : Math.floor(r() * shape.length);
      if (empty && axis !== null) shape[axis] = 0;
      const x = input(`${name}x`, dx, shape);
      cases.push({ name, kind, op, x, axis, nodes: [load(`${name}_x`, x, shape), { id: name, op: 'reduce', params: axis === null ? { op } : { op, axis } }], edges: [edge(`${name}_x`, name, 'x')] });
    }
  }
  return { cases, dir, want: numpyAnswers(cases, dir) };
}

/** Computes `cases` (inputs already under `dir`) with NumPy: writes each answer there, returns their dtypes. */
export function numpyAnswers(cases: DtypeCase[], dir: string): Record<string, string> {
  writeFileSync(join(dir, 'cases.json'), JSON.stringify(cases.map(({ nodes: _n, edges: _e, ...c }) => c)));
  execFileSync('/usr/bin/python3', ['test/helpers/dtype_oracle.py', dir], { stdio: ['ignore', 'ignore', 'inherit'] });
  return JSON.parse(readFileSync(join(dir, 'want.json'), 'utf8')) as Record<string, string>;
}

/** All cases as one workflow document. */
export function dtypeCasesDoc(cases: DtypeCase[]): unknown {
  return { format: 'gpuflow.workflow/1', nodes: cases.flatMap((c) => c.nodes), edges: cases.flatMap((c) => c.edges) };
}

/**
 * How close to NumPy a result must be: integers and exact float ops bit for bit; float32 results
 * within a few float32 ulps (NumPy's float32 exp / log / pow and its pairwise float32 sums round
 * differently from double-then-round); float64 within 1e-12 (transcendentals of libm vs V8).
 */
function tolerance(c: DtypeCase, dtype: string): number {
  if (dtype === 'int32' || dtype === 'int64' || dtype === 'bool') return 0;
  if (c.kind === 'reduce' || (c.kind === 'call' && ['nanmean', 'nansum', 'nanprod'].includes(c.fn ?? ''))) return dtype === 'float32' ? 1e-4 : 1e-12;
  // Moving elements (take, transpose, moveaxis ...) is exact; interpolating (percentile) rounds.
  if (c.kind === 'call') return ['percentile', 'quantile', 'median', 'nanmedian'].includes(c.fn ?? '') ? (dtype === 'float32' ? 1e-6 : 1e-12) : 0;
  if (c.kind === 'concatenate' || c.kind === 'diff' || ['add', 'sub', 'mul', 'min', 'max', 'neg', 'abs', 'square'].includes(c.op)) return 0;
  return dtype === 'float32' ? 2e-6 : 1e-12;
}

/** Checks one case's result against NumPy's: the dtype exactly, then the values. */
export function checkDtypeCase(c: DtypeCase, got: ResultValue | undefined, dir: string, want: Record<string, string>): void {
  const npDtype = want[c.name];
  const label = `${c.name} (${c.kind} ${c.op}${c.kwargs ? ` ${JSON.stringify(c.kwargs)}` : ''}${c.kind === 'scalar' ? ` ${c.valueKind} ${c.value}${c.reverse ? ' reversed' : ''}` : ''}${c.axis !== undefined ? ` axis ${c.axis}` : ''})`;
  const dtype = got && 'dtype' in got ? got.dtype : undefined;
  if (dtype !== npDtype) throw new Error(`${label}: dtype ${dtype}, NumPy ${npDtype}`);
  checkOutput(valuesOf(got), `${c.name}.want.npy`, tolerance(c, npDtype), label, dir);
}

/** Checks every case (checkDtypeCase) and throws one error listing all that differ from NumPy. */
export function checkDtypeCases(cases: DtypeCase[], results: Record<string, ResultValue | undefined>, dir: string, want: Record<string, string>): void {
  const errors: string[] = [];
  for (const c of cases) {
    try {
      checkDtypeCase(c, results[c.name], dir, want);
    } catch (e) {
      errors.push(e instanceof Error ? e.message.split('\n')[0] : String(e));
    }
  }
  if (errors.length) throw new Error(`${errors.length} of ${cases.length} cases differ from NumPy:\n${errors.join('\n')}`);
}
