/**
 * load_npy / save_npy and the path checks: blocks read by row ranges (any chunking, C order)
 * match the file read whole; a saved array reads back identically with NumPy's layout; paths
 * outside the allowed folders, symlink escapes and bad files fail naming node, field and folders.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readNpy, writeNpy } from '../../../common/npy';
import { allowedRoots, checkPath } from '../../../main/engine/paths';
import { runLocal } from '../../helpers/local-run';

const dir = mkdtempSync(join(tmpdir(), 'gpuflow-npy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const doc = (nodes: unknown[], edges: unknown[] = []) => ({ format: 'gpuflow.workflow/1', nodes, edges });
const e = (source: string, target: string, targetPort = 'x') => ({ source, sourcePort: 'out', target, targetPort });
const fail = (field: string, detail: string): never => {
  throw new Error(`${field}: ${detail}`);
};

// 7 x 5 x 3 int64 and 9 x 6 float32, values k * 1.5 - 3 by flat index k (hand-checkable).
const f32 = { dtype: 'float32' as const, shape: [9, 6], data: Float32Array.from({ length: 54 }, (_, k) => k * 1.5 - 3) };
const i64 = { dtype: 'int64' as const, shape: [7, 5, 3], data: BigInt64Array.from({ length: 105 }, (_, k) => BigInt(k * 7 - 20)) };
writeFileSync(join(dir, 'f32.npy'), writeNpy(f32));
writeFileSync(join(dir, 'i64.npy'), writeNpy(i64));

describe('load_npy', () => {
  it.each([[[9, 6]], [[4, 6]], [[2, 4]], [[1, 1]], [[5]]])('reads a float32 file in blocks %j', async (chunks) => {
    const out = await runLocal(doc([{ id: 'x', op: 'load_npy', params: { path: join(dir, 'f32.npy'), chunks } }]));
    expect(out.x).toMatchObject({ kind: 'array', dtype: 'float32', shape: [9, 6] });
    expect((out.x as { data: number[] }).data).toEqual(Array.from({ length: 54 }, (_, k) => k * 1.5 - 3));
  });

  it('reads a 3-D int64 file with blocks cut on every axis, and slices it', async () => {
    const out = await runLocal(doc([{ id: 'x', op: 'load_npy', params: { path: join(dir, 'i64.npy'), chunks: [3, 2, 2] } }, { id: 's', op: 'slice', params: { slices: '1::3, ::2, 2' } }], [e('x', 's')]));
    expect((out.s as { shape: number[] }).shape).toEqual([2, 3]);
    const want: number[] = [];
    for (const i of [1, 4]) for (const j of [0, 2, 4]) want.push((i * 15 + j * 3 + 2) * 7 - 20);
    expect((out.s as { data: number[] }).data).toEqual(want);
  });

  it('reads a NumPy-written fixture (relative path) the same as readNpy', async () => {
    const path = 'test/fixtures/arrays/ops/x.npy';
    const out = await runLocal(doc([{ id: 'x', op: 'load_npy', params: { path, chunks: [4, 3] } }]));
    expect((out.x as { data: number[] }).data).toEqual(Array.from(readNpy(new Uint8Array(readFileSync(path))).data as Float64Array));
  });

  it('refuses bad files naming the node and field', async () => {
    writeFileSync(join(dir, 'short.npy'), writeNpy(f32).subarray(0, 200));
    writeFileSync(join(dir, 'text.npy'), 'hello');
    const u8 = writeNpy({ dtype: 'float64', shape: [2], data: new Float64Array(2) });
    const bad = Buffer.from(u8).toString('latin1').replace("'<f8'", "'<u2'");
    writeFileSync(join(dir, 'u2.npy'), Buffer.from(bad, 'latin1'));
    const run = (p: string) => runLocal(doc([{ id: 'ld', op: 'load_npy', params: { path: join(dir, p), chunks: [2] } }]));
    await expect(run('short.npy')).rejects.toThrow(/nodes\[0\]\.params\.path.*'ld'.*needs \d+ bytes, the file has 200/);
    await expect(run('text.npy')).rejects.toThrow(/params\.path.*not a \.npy file/);
    await expect(run('u2.npy')).rejects.toThrow(/dtype '<u2' is not supported/);
    await expect(run('missing.npy')).rejects.toThrow(/params\.path.*cannot open.*ENOENT/);
  });
});

describe('save_npy', () => {
  it('writes what NumPy would read: C order, dtype, shape; reports {path, shape, dtype}', async () => {
    const path = join(dir, 'out.npy');
    const out = await runLocal(
      doc(
        [
          { id: 'a', op: 'arange', params: { start: 0, stop: 12, chunks: 5 } },
          { id: 'z', op: 'zeros', params: { shape: [3, 12], chunks: [2, 5] } },
          { id: 'b', op: 'binary', params: { op: 'add' } },
          { id: 'save', op: 'save_npy', params: { path } },
        ],
        [e('z', 'b', 'a'), e('a', 'b', 'b'), e('b', 'save')],
      ),
    );
    expect(out.save).toEqual({ kind: 'json', value: { path, shape: [3, 12], dtype: 'float64' } });
    const back = readNpy(new Uint8Array(readFileSync(path)));
    expect(back.shape).toEqual([3, 12]);
    expect(Array.from(back.data as Float64Array)).toEqual([0, 1, 2].flatMap(() => Array.from({ length: 12 }, (_, j) => j)));
    // The header is NumPy's: version 1.0, C order, 64-byte aligned data.
    const text = Buffer.from(readFileSync(path)).toString('latin1', 10, 128);
    expect(text).toContain("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 12), }");
  });

  it('refuses a path that does not end in .npy or lies outside the allowed folders', async () => {
    const w = (path: string) => doc([{ id: 'a', op: 'ones', params: { shape: [2], chunks: [2] } }, { id: 'sv', op: 'save_npy', params: { path } }], [e('a', 'sv')]);
    await expect(runLocal(w(join(dir, 'x.txt')))).rejects.toThrow(/params\.path.*must end in \.npy/);
    await expect(runLocal(w('/etc/gpuflow-test.npy'))).rejects.toThrow(/params\.path.*outside the allowed folders/);
  });
});

describe('checkPath', () => {
  it('allows the working directory and the temp folder by default, and GPUFLOW_ALLOWED_DIRS when set', () => {
    const saved = process.env.GPUFLOW_ALLOWED_DIRS;
    try {
      delete process.env.GPUFLOW_ALLOWED_DIRS;
      expect(allowedRoots().length).toBeGreaterThanOrEqual(1);
      expect(checkPath('package.json', 'params.path', { fail })).toBe(join(allowedRoots()[0], 'package.json'));
      process.env.GPUFLOW_ALLOWED_DIRS = `${dir}:${join(dir, 'nope')}`;
      expect(() => checkPath('package.json', 'params.path', { fail })).toThrow(/params\.path: package\.json .* outside the allowed folders: .*gpuflow-npy-/);
      expect(checkPath(join(dir, 'new', 'deep', 'f.npy'), 'f', { fail })).toMatch(/new\/deep\/f\.npy$/);
    } finally {
      if (saved === undefined) delete process.env.GPUFLOW_ALLOWED_DIRS;
      else process.env.GPUFLOW_ALLOWED_DIRS = saved;
    }
  });

  it('follows symlinks before deciding: a link inside pointing outside is refused', () => {
    mkdirSync(join(dir, 'inner'), { recursive: true });
    symlinkSync('/etc', join(dir, 'inner', 'escape'));
    expect(() => checkPath(join(dir, 'inner', 'escape', 'passwd'), 'params.path', { fail })).toThrow(/resolves to \/etc\/passwd.*outside the allowed folders/);
    expect(() => checkPath(join(dir, 'inner', '..', '..', '..', 'etc', 'x.npy'), 'params.path', { fail })).toThrow(/outside the allowed folders/);
    expect(() => checkPath('', 'params.path', { fail })).toThrow(/must be a file path/);
  });
});
