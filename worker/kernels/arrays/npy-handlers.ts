/**
 * Task handlers of load_npy / save_npy (main/engine/ops/arrays-files.ts). Paths arrive already
 * checked and resolved by the compiler on main. A read task reads only its block's rows (one
 * contiguous byte range in C order) and keeps its columns; a save task gathers every block,
 * writes a temporary file beside the target and renames it, so a reader never sees half a file
 * (common/safe-files.ts writeFileNoFollow: no link is followed).
 */
import { closeSync, readSync } from 'node:fs';
import { openRegularFile, writeFileNoFollow } from '../../../common/safe-files';
import type { DType, NDArray } from '../../../common/arrays';
import { allocate, bytesPerElement, sizeOf } from '../../../common/arrays';
import { writeNpy } from '../../../common/npy';
import type { ArrayOpParams } from '../../../common/array-op-params';
import { registerArrayOp } from '../../handlers';
import { assemble } from './assemble';

type ReadParams = ArrayOpParams<'npy-read'>;

/** Reads rows [start[0], start[0] + shape[0]) of the file, then keeps the block's other axes. */
export function readNpyBlock(p: ReadParams): NDArray {
  const isz = bytesPerElement(p.dtype);
  const nd = p.fileShape.length;
  const rowElems = nd ? sizeOf(p.fileShape.slice(1)) : 1;
  const rows = nd ? p.shape[0] : 1;
  const row0 = nd ? p.start[0] : 0;
  const rowsShape = nd ? [rows, ...p.fileShape.slice(1)] : [];
  const data = allocate(p.dtype, rows * rowElems);
  const { fd, size } = openRegularFile(p.path);
  try {
    if (size !== p.fileBytes) throw new Error(`load_npy: ${p.path} changed since the workflow was compiled (${p.fileBytes} bytes then, ${size} now)`);
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    let got = 0;
    while (got < bytes.length) {
      const n = readSync(fd, bytes, got, bytes.length - got, p.dataStart + row0 * rowElems * isz + got);
      if (n === 0) throw new Error(`load_npy: ${p.path} ended early`);
      got += n;
    }
  } finally {
    closeSync(fd);
  }
  const whole: NDArray = { dtype: p.dtype, shape: rowsShape, data };
  if (nd < 2 || p.shape.every((s, d) => d === 0 || s === p.fileShape[d])) return { ...whole, shape: p.shape };
  const srcStart = [0, ...p.start.slice(1)];
  return assemble(p.shape, p.dtype, [{ dep: 0, srcStart, count: p.shape, dstStart: p.shape.map(() => 0) }], [whole]);
}

registerArrayOp('npy-read', async (params) => ({ value: { kind: 'array', array: readNpyBlock(params) }, backend: 'js' }));

registerArrayOp('npy-save', async (params, inputs) => {
  const { shape, chunks, dtype, path } = params;
  const arrays = inputs.map((v, i) => {
    if (v.kind !== 'array') throw new Error(`save_npy: input ${i} is a ${v.kind}, not an array block`);
    return v.array.dtype === dtype ? v.array : { ...v.array, dtype, data: castTo(dtype, v.array) };
  });
  // Blocks arrive in C order over the block grid; each is copied to its offset.
  const pieces = arrays.map((a, b) => {
    const idx = gridIndex(chunks, b);
    return { dep: b, srcStart: a.shape.map(() => 0), count: a.shape, dstStart: idx.map((i, d) => chunks[d].slice(0, i).reduce((s, x) => s + x, 0)) };
  });
  const full = shape.length === 0 ? arrays[0] : assemble(shape, dtype, pieces, arrays);
  // A random O_EXCL temporary beside the target, renamed onto it: a link planted at the target
  // or at a predictable temporary name is replaced, never followed (issue 29.3).
  writeFileNoFollow(path, writeNpy(full));
  return { value: { kind: 'json', value: { path, shape, dtype } }, backend: 'js' };
});

function gridIndex(chunks: number[][], flat: number): number[] {
  const idx = new Array<number>(chunks.length);
  for (let d = chunks.length - 1; d >= 0; d--) {
    idx[d] = flat % chunks[d].length;
    flat = Math.floor(flat / chunks[d].length);
  }
  return idx;
}

/** Blocks should already have the array's dtype; this guards a backend that returned another. */
function castTo(dtype: DType, a: NDArray): NDArray['data'] {
  const out = allocate(dtype, a.data.length);
  if (out instanceof BigInt64Array) for (let i = 0; i < a.data.length; i++) out[i] = BigInt(Math.trunc(Number(a.data[i])));
  else for (let i = 0; i < a.data.length; i++) out[i] = Number(a.data[i]);
  return out;
}
