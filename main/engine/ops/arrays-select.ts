/**
 * Selection and conversion nodes: where (numpy.where with three arrays, or an array and a
 * number) and astype. Both stay fused into their neighbours' programs; a node that changes the
 * precision a fused chain computes in (float32 <-> anything else) first materialises its input,
 * because a program computes every op in its output dtype (common/arrays.ts) and NumPy computes
 * the upstream ops in their own.
 */
import type { DType, Expr } from '../../../common/arrays';
import { align } from '../compile/broadcast';
import { blockShape } from '../compile/chunks';
import { mapBlocks, materialize, settle } from '../compile/array-lower';
import { shiftDeps } from '../compile/restrict';
import { arrayInput, truthOf } from './arrays-core';
import { DTYPES, resultTypeOf, scalarKind, scalarOperand } from '../../../common/dtype-rules';
import type { BuildContext, LazyArray, OpDef } from './types';

const where: OpDef = {
  spec: {
    op: 'where',
    label: 'Where',
    category: 'arrays',
    doc: 'numpy.where(cond, a, b): a where cond is non-zero, else b (b, or a, may be a number instead of an array). Broadcasts the three; cond usually comes from a comparison.',
    inputs: [
      { name: 'cond', type: 'array' },
      { name: 'a', type: 'array', optional: true },
      { name: 'b', type: 'array', optional: true },
    ],
    outputs: [{ name: 'out', type: 'array' }],
    params: [
      { name: 'a_value', kind: 'number', doc: 'used when port a is not connected' },
      { name: 'b_value', kind: 'number', default: 0, doc: 'used when port b is not connected' },
    ],
  },
  build(ctx) {
    const cond = arrayInput(ctx, 'cond');
    const side = (port: 'a' | 'b'): LazyArray | number => {
      if (ctx.inputs[port]) return arrayInput(ctx, port);
      const v = ctx.params[`${port}_value`] ?? (port === 'b' ? 0 : undefined);
      if (typeof v !== 'number') return ctx.fail(`params.${port}_value`, `a number is needed when port ${port} is not connected`);
      return v;
    };
    const a = side('a');
    const b = side('b');
    // NumPy 2: the result type of a and b, a number being a weak Python scalar (NEP 50).
    const dtype = resultTypeOf([a, b].map((v) => (typeof v === 'number' ? scalarKind(v) : v.dtype)));
    const arrays = [cond, a, b].filter((v): v is LazyArray => typeof v !== 'number').map((v, i) => settle(v, dtype, ctx, `where-in${i}`));
    const al = align(arrays, ctx, 'cond');
    const ops = al.operands;
    const fill = (value: number): Expr => ({ kind: 'leaf', leaf: { kind: 'fill', value: scalarOperand(value, dtype) } });
    const out: LazyArray = {
      kind: 'array',
      shape: al.shape,
      chunks: al.chunks,
      dtype,
      opName: `${ops[0].opName}+where`,
      nodes: [...ops.flatMap((o) => o.nodes), ctx.nodeId],
      block(idx) {
        const deps: string[] = [];
        const part = (o: LazyArray) => {
          const p = al.block(o, idx);
          const e = shiftDeps(p.expr, deps.length);
          deps.push(...p.deps);
          return e;
        };
        let k = 1;
        const c = part(ops[0]);
        const ea = typeof a === 'number' ? fill(a) : part(ops[k++]);
        const eb = typeof b === 'number' ? fill(b) : part(ops[k++]);
        return { expr: { kind: 'where', cond: c, a: ea, b: eb }, deps };
      },
    };
    return { out };
  },
};

const astype: OpDef = {
  spec: {
    op: 'astype',
    label: 'As type',
    category: 'arrays',
    doc: 'Converts to another dtype, as ndarray.astype: floats to integers truncate toward zero; to bool, non-zero (NaN too) is True.',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [{ name: 'out', type: 'array' }],
    params: [{ name: 'dtype', kind: 'enum', options: DTYPES, required: true }],
  },
  build(ctx) {
    return { out: castArray(arrayInput(ctx, 'x', { unknownSizes: true }), ctx.params.dtype as DType, ctx) };
  },
};

/** `x` as `dtype` (ndarray.astype): floats to integers truncate toward zero. */
export function castArray(x: LazyArray, dtype: DType, ctx: BuildContext): LazyArray {
  if (dtype === x.dtype) return x;
  // A float chain computes in its own dtype first; the conversion is the program's output dtype.
  const src = x.dtype === 'float32' || x.dtype === 'float64' ? materialize(x, ctx, 'src') : x;
  // The block expression is wrapped in an identity broadcast so that it is not mistaken for an
  // already materialised block (materialize() would hand back the source's tasks, in the old
  // dtype); backends fold the broadcast away.
  // To bool: values other than 0 / 1 become 1 here, so ops fused after the cast see NumPy's True.
  const out = mapBlocks(src, dtype === 'bool' ? truthOf : (e) => e, 'astype', ctx.nodeId, dtype);
  return {
    ...out,
    block: (idx) => {
      const b = out.block(idx);
      return { expr: { kind: 'broadcast', arg: b.expr, from: blockShape(src.chunks, idx) }, deps: b.deps };
    },
  };
}

export const SELECT_ARRAY_OPS: OpDef[] = [where, astype];
