/** Array constructors: zeros, ones, full, arange, linspace, eye, tri. Each block is a leaf; nothing is stored until used. */
import type { CompareOp, DType, Expr, Leaf } from '../../../common/arrays';
import type { NodeKindSpec } from '../../../common/catalog';
import { DTYPES } from '../../../common/dtype-rules';
import { blockOffset, blockShape, fullRegion, normalizeChunks } from '../compile/chunks';
import { mapBlocks } from '../compile/array-lower';
import { chunkSizes, num, shapeAndChunks } from './arrays-core';
import { castArray } from './arrays-select';
import type { BuildContext, LazyArray, OpDef } from './types';

function leafArray(ctx: BuildContext, shape: number[], chunks: number[][], dtype: DType, name: string, leafOf: (region: ReturnType<typeof fullRegion>) => Leaf): LazyArray {
  return {
    kind: 'array',
    shape,
    chunks,
    dtype,
    opName: name,
    nodes: [ctx.nodeId],
    block(idx) {
      const region = fullRegion(blockShape(chunks, idx));
      region.start = blockOffset(chunks, idx);
      return { expr: { kind: 'leaf', leaf: leafOf(region) }, deps: [] };
    },
  };
}

function fillOp(op: string, label: string, value: number | null): OpDef {
  const params: NodeKindSpec['params'] = [
    { name: 'shape', kind: 'numbers', integer: true, min: 0, minLength: 1, required: true },
    { name: 'chunks', kind: 'numbers', integer: true, exclusiveMin: 0, minLength: 1, required: true },
    { name: 'dtype', kind: 'enum', options: DTYPES, default: 'float64' },
  ];
  if (value === null) params.push({ name: 'value', kind: 'number', required: true });
  return {
    spec: { op, label, category: 'arrays', doc: `${label}: an array of one value.`, inputs: [], outputs: [{ name: 'out', type: 'array' }], params },
    build(ctx) {
      const { shape, chunks } = shapeAndChunks(ctx);
      const v = value ?? num(ctx, 'value');
      return { out: leafArray(ctx, shape, chunks, (ctx.params.dtype ?? 'float64') as DType, op, () => ({ kind: 'fill', value: v })) };
    },
  };
}

const arange: OpDef = {
  spec: {
    op: 'arange',
    label: 'Arange',
    category: 'arrays',
    doc: 'Evenly spaced values start, start+step, ... below stop (1-D), as numpy.arange.',
    inputs: [],
    outputs: [{ name: 'out', type: 'array' }],
    params: [
      { name: 'start', kind: 'number', default: 0 },
      { name: 'stop', kind: 'number', required: true },
      { name: 'step', kind: 'number', default: 1 },
      { name: 'chunks', kind: 'number', integer: true, exclusiveMin: 0, required: true },
      { name: 'dtype', kind: 'enum', options: DTYPES, default: 'float64' },
    ],
  },
  build(ctx) {
    const start = num(ctx, 'start');
    const stop = num(ctx, 'stop');
    const step = num(ctx, 'step');
    if (step === 0) ctx.fail('params.step', 'must not be zero');
    const n = Math.max(0, Math.ceil((stop - start) / step));
    const shape = [n];
    const chunks = normalizeChunks(shape, [num(ctx, 'chunks')]);
    return { out: leafArray(ctx, shape, chunks, (ctx.params.dtype ?? 'float64') as DType, 'arange', (region) => ({ kind: 'arange', start, step, shape, region })) };
  },
};

const linspace: OpDef = {
  spec: {
    op: 'linspace',
    label: 'Linspace',
    category: 'arrays',
    doc: 'num evenly spaced values from start to stop inclusive (1-D), as numpy.linspace.',
    inputs: [],
    outputs: [{ name: 'out', type: 'array' }],
    params: [
      { name: 'start', kind: 'number', required: true },
      { name: 'stop', kind: 'number', required: true },
      { name: 'num', kind: 'number', integer: true, min: 0, default: 50 },
      { name: 'chunks', kind: 'number', integer: true, exclusiveMin: 0, required: true },
      { name: 'dtype', kind: 'enum', options: DTYPES, default: 'float64', doc: 'integer dtypes take the floor of the float64 values, as numpy.linspace(..., dtype=int)' },
    ],
  },
  build(ctx) {
    const start = num(ctx, 'start');
    const stop = num(ctx, 'stop');
    const n = num(ctx, 'num');
    const step = n > 1 ? (stop - start) / (n - 1) : 0;
    const shape = [n];
    const chunks = normalizeChunks(shape, [num(ctx, 'chunks')]);
    const values = leafArray(ctx, shape, chunks, 'float64', 'linspace', (region) => ({ kind: 'arange', start, step, shape, region }));
    // NumPy computes in float64, floors for an integer dtype, then casts to the dtype asked for.
    const dtype = (ctx.params.dtype ?? 'float64') as DType;
    const floored = dtype === 'int32' || dtype === 'int64' ? mapBlocks(values, (e) => ({ kind: 'unary', op: 'floor', arg: e }), 'floor', ctx.nodeId) : values;
    return { out: castArray(floored, dtype, ctx) };
  },
};

/**
 * `column <test> row + k` (1 / 0) over the block at `offset` of shape `shape` of an n x m array:
 * its row indices (+ k) and column indices as two broadcast arange leaves, so nothing is stored.
 */
export function diagonalTest(test: CompareOp, n: number, m: number, k: number, [r0, c0]: number[], [r, c]: number[]): Expr {
  const rows: Expr = { kind: 'broadcast', from: [r, 1], arg: { kind: 'leaf', leaf: { kind: 'arange', start: k, step: 1, shape: [n, 1], region: { start: [r0, 0], step: [1, 1], count: [r, 1] } } } };
  const cols: Expr = { kind: 'broadcast', from: [c], arg: { kind: 'leaf', leaf: { kind: 'arange', start: 0, step: 1, shape: [m], region: { start: [c0], step: [1], count: [c] } } } };
  return { kind: 'binary', op: test, a: cols, b: rows };
}

/**
 * numpy.eye (1 where j == i + k) and numpy.tri (1 where j <= i + k) of N x M: each block compares
 * its row indices (+ k) with its column indices, two broadcast arange leaves, so nothing is stored.
 */
function diagonalOp(op: 'eye' | 'tri', test: CompareOp, doc: string): OpDef {
  return {
    spec: {
      op,
      label: op === 'eye' ? 'Eye' : 'Tri',
      category: 'arrays',
      doc,
      inputs: [],
      outputs: [{ name: 'out', type: 'array' }],
      params: [
        { name: 'N', kind: 'number', integer: true, min: 0, required: true, doc: 'rows' },
        { name: 'M', kind: 'number', integer: true, min: 0, doc: 'columns (empty: N)' },
        { name: 'k', kind: 'number', integer: true, default: 0, doc: 'diagonal offset (positive: above the main one)' },
        { name: 'chunks', kind: 'numbers', integer: true, exclusiveMin: 0, minLength: 1, required: true },
        { name: 'dtype', kind: 'enum', options: DTYPES, default: 'float64' },
      ],
    },
    build(ctx) {
      const n = num(ctx, 'N');
      const m = ctx.params.M === undefined || ctx.params.M === null ? n : num(ctx, 'M');
      const k = (ctx.params.k ?? 0) as number;
      const shape = [n, m];
      const chunks = normalizeChunks(shape, chunkSizes(ctx, 2, 'the N x M result'));
      return {
        out: {
          kind: 'array',
          shape,
          chunks,
          dtype: (ctx.params.dtype ?? 'float64') as DType,
          opName: op,
          nodes: [ctx.nodeId],
          block(idx) {
            // eye: column == row + k; tri: column <= row + k.
            return { expr: diagonalTest(test, n, m, k, blockOffset(chunks, idx), blockShape(chunks, idx)), deps: [] };
          },
        },
      };
    },
  };
}

export const CREATE_ARRAY_OPS: OpDef[] = [
  fillOp('zeros', 'Zeros', 0),
  fillOp('ones', 'Ones', 1),
  fillOp('full', 'Full', null),
  arange,
  linspace,
  diagonalOp('eye', 'eq', 'N x M with ones on the k-th diagonal, zeros elsewhere (numpy.eye).'),
  diagonalOp('tri', 'le', 'N x M with ones at and below the k-th diagonal, zeros above (numpy.tri).'),
];
