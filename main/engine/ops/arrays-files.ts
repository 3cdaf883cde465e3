/**
 * .npy files as array nodes (docs/npy-nodes.md).
 *
 * load_npy reads only the header at compile time (compile is synchronous, so fs.readSync on the
 * first bytes) to learn shape and dtype; each block task then reads only its rows' bytes on the
 * worker (C order: a block's rows are one contiguous byte range; a block narrower than the
 * array reads its rows whole and keeps its columns).
 *
 * save_npy gathers every block into one task that writes the file, so the array must fit one
 * worker's memory (the compiler's task-size limit refuses it otherwise).
 */
import { closeSync, readSync } from 'node:fs';
import { arrayOpSpec } from '../../../common/array-op-params';
import type { DType } from '../../../common/arrays';
import { bytesPerElement, sizeOf } from '../../../common/arrays';
import { npyHeaderEnd, parseNpyHeader, type NpyHeader } from '../../../common/npy-header';
import { fromKeys, materialize } from '../compile/array-lower';
import { blockIndices, blockOffset, blockShape, normalizeChunks } from '../compile/chunks';
import { checkPath, openChecked } from '../paths';
import { arrayInput, chunkSizes, nums } from './arrays-core';
import type { BuildContext, OpDef } from './types';

/** Reads and parses the header of `path` (already checked), failing on `params.path`. */
function readHeader(ctx: BuildContext, path: string): NpyHeader & { fileBytes: number } {
  // Never a plain open: a FIFO here would block main's thread until a writer came (issue 29.1).
  const { fd, size: fileBytes } = openChecked(path, 'params.path', ctx);
  try {
    const pre = new Uint8Array(12);
    readSync(fd, pre, 0, 12, 0);
    const end = npyHeaderEnd(pre);
    const buf = new Uint8Array(Math.min(end, fileBytes));
    readSync(fd, buf, 0, buf.length, 0);
    const h = parseNpyHeader(buf);
    const want = h.dataStart + sizeOf(h.shape) * bytesPerElement(h.dtype);
    if (fileBytes !== want) ctx.fail('params.path', `${path}: shape (${h.shape.join(', ')}) of ${h.dtype} needs ${want} bytes, the file has ${fileBytes}`);
    if (h.fortranOrder && h.shape.filter((d) => d > 1).length > 1) {
      ctx.fail('params.path', `${path} is in Fortran order; blocks are read as C-order rows: save it with numpy.ascontiguousarray(a)`);
    }
    return { ...h, fileBytes };
  } catch (e) {
    if (e instanceof Error && e.name === 'NpyError') ctx.fail('params.path', `${path}: ${e.message}`);
    throw e;
  } finally {
    closeSync(fd);
  }
}

const loadNpy: OpDef = {
  spec: {
    op: 'load_npy',
    label: 'Load .npy',
    category: 'files',
    doc: 'Reads a NumPy .npy file (<f8 <f4 <i4 <i8, C order) in blocks; each block task reads only its own rows. The path must lie in an allowed folder (GPUFLOW_ALLOWED_DIRS).',
    inputs: [],
    outputs: [{ name: 'out', type: 'array' }],
    params: [
      { name: 'path', kind: 'string', path: 'file', required: true, doc: 'file path, inside an allowed folder' },
      { name: 'chunks', kind: 'numbers', integer: true, exclusiveMin: 0, minLength: 1, required: true, doc: 'chunk size per axis (one number: every axis)' },
    ],
  },
  build(ctx) {
    const path = checkPath(ctx.params.path, 'params.path', ctx);
    const h = readHeader(ctx, path);
    const per = chunkSizes(ctx, h.shape.length, path);
    const chunks = normalizeChunks(h.shape, per);
    const isz = bytesPerElement(h.dtype);
    const keys: string[] = [];
    for (const idx of blockIndices(chunks)) {
      const shape = blockShape(chunks, idx);
      const start = blockOffset(chunks, idx);
      const rowBytes = sizeOf(h.shape.slice(1)) * isz;
      const key = ctx.key('read', idx);
      const outBytes = sizeOf(shape) * isz;
      // Reading whole rows and keeping some columns touches rowCount * rowBytes.
      const readBytes = h.shape.length ? shape[0] * rowBytes : isz;
      ctx.emit({
        key,
        deps: [],
        spec: arrayOpSpec('npy-read', { path, dataStart: h.dataStart, fileBytes: h.fileBytes, dtype: h.dtype, fileShape: h.shape, start, shape }),
        resource: 'any',
        op: 'load_npy',
        outBytes,
        workBytes: outBytes + readBytes,
      });
      keys.push(key);
    }
    return { out: fromKeys(h.shape, chunks, h.dtype, keys, ctx.nodeId, [ctx.nodeId]) };
  },
};

const saveNpy: OpDef = {
  spec: {
    op: 'save_npy',
    label: 'Save .npy',
    category: 'files',
    doc: 'Writes the array to a .npy file (C order; written to a temporary name, then renamed). One task gathers every block, so the array must fit one worker. Reports {path, shape, dtype}.',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [],
    params: [{ name: 'path', kind: 'string', path: 'file', required: true, doc: 'file path ending in .npy, inside an allowed folder' }],
  },
  build(ctx) {
    const path = checkPath(ctx.params.path, 'params.path', ctx);
    if (!path.endsWith('.npy')) ctx.fail('params.path', `${String(ctx.params.path)} must end in .npy`);
    const x = materialize(arrayInput(ctx, 'x'), ctx, 'x');
    const dtype: DType = x.dtype;
    const deps = blockIndices(x.chunks).map((idx) => x.block(idx).deps[0]);
    const bytes = sizeOf(x.shape) * bytesPerElement(dtype);
    const key = ctx.key('save');
    ctx.emit({ key, deps, spec: arrayOpSpec('npy-save', { path, shape: x.shape, chunks: x.chunks, dtype }), resource: 'any', op: 'save_npy', outBytes: 256, workBytes: 2 * bytes });
    // No port: the result is reported as json by the run ({path, shape, dtype}).
    return { out: { kind: 'opaque', portType: 'dataset', keys: [key], meta: { path } } };
  },
};

export const FILE_ARRAY_OPS: OpDef[] = [loadNpy, saveNpy];
