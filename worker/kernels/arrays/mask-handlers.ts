/** Boolean-mask selection of one block (main/engine/ops/arrays-mask.ts): x[mask] and x[..., m] along one axis. */
import { allocate, type ChunkValue } from '../../../common/arrays';
import { registerArrayOp } from '../../handlers';

function boolMask(name: string, m: ChunkValue | undefined): Uint8Array {
  if (m?.kind !== 'array') throw new Error(`${name}: the mask is not an array`);
  const mask = m.array.data;
  if (!(mask instanceof Uint8Array)) throw new Error(`${name}: the mask is ${m.array.dtype}, not bool`);
  return mask;
}

// x[mask] of one block: the values where the mask is True, in C order.
registerArrayOp('mask-select', async (_params, inputs) => {
  const [x, m] = inputs;
  if (x?.kind !== 'array') throw new Error('mask-select: input 0 is not an array');
  const mask = boolMask('mask-select', m);
  if (mask.length !== x.array.data.length) throw new Error(`mask-select: mask of ${mask.length} elements for a block of ${x.array.data.length}`);
  let n = 0;
  for (let i = 0; i < mask.length; i++) n += mask[i] ? 1 : 0;
  const out = allocate(x.array.dtype, n);
  const src = x.array.data;
  for (let i = 0, k = 0; i < mask.length; i++) if (mask[i]) out[k++] = src[i];
  return { value: { kind: 'array', array: { dtype: x.array.dtype, shape: [n], data: out } }, backend: 'js' };
});

// x[..., m] of one block along `axis`: the positions of that axis where m is True, every other
// axis whole; the block is read as (outer, len, inner) in C order and copied inner rows at a time.
registerArrayOp('mask-select-axis', async ({ axis }, inputs) => {
  const [x, m] = inputs;
  if (x?.kind !== 'array') throw new Error('mask-select-axis: input 0 is not an array');
  const mask = boolMask('mask-select-axis', m);
  const shape = x.array.shape;
  if (axis >= shape.length || mask.length !== shape[axis]) throw new Error(`mask-select-axis: mask of ${mask.length} elements for axis ${axis} of a block of shape (${shape.join(', ')})`);
  const kept: number[] = [];
  mask.forEach((b, i) => (b ? kept.push(i) : undefined));
  const outer = shape.slice(0, axis).reduce((a, b) => a * b, 1);
  const inner = shape.slice(axis + 1).reduce((a, b) => a * b, 1);
  const out = allocate(x.array.dtype, outer * kept.length * inner);
  const src = x.array.data;
  let k = 0;
  for (let o = 0; o < outer; o++) {
    for (const i of kept) {
      const from = (o * shape[axis] + i) * inner;
      for (let j = 0; j < inner; j++) out[k++] = src[from + j];
    }
  }
  const outShape = shape.map((s, d) => (d === axis ? kept.length : s));
  return { value: { kind: 'array', array: { dtype: x.array.dtype, shape: outShape, data: out } }, backend: 'js' };
});

// A reduction without identity over a selection that turned out empty fails as NumPy raises
// (main/engine/ops/arrays-mask.ts): input 1 is its element count.
registerArrayOp('require-elements', async ({ error }, inputs) => {
  const [v, n] = inputs;
  if (v?.kind !== 'array' || n?.kind !== 'array') throw new Error('require-elements: inputs are not two arrays');
  if (Number(n.array.data[0]) === 0) throw new Error(error);
  return { value: v, backend: 'js' };
});
