/**
 * A device in JS for the residency manager's tests: buffers are copies held in a map, kernels are
 * the js reference kernels. It counts what a real device would move, and fails loudly on what a
 * real one would corrupt on (a freed or unknown id, a double free), so the tests see the manager's
 * real behaviour.
 */
import type { NDArray } from '../../../common/arrays';
import { isDeviceRef, type DeviceApi, type DeviceArrayRef } from '../../../worker/resident/device-api';
import { runProgram } from '../../../worker/kernels/js/program';
import { matmul } from '../../../worker/kernels/js/linalg/matmul';
import { qr, svd } from '../../../worker/kernels/js/linalg';
import { stackRows } from '../../../worker/kernels/arrays/linalg-handlers';

function copy(a: NDArray): NDArray {
  return { dtype: a.dtype, shape: [...a.shape], data: a.data.slice() };
}

export class FakeDevice implements DeviceApi {
  readonly buffers = new Map<number, NDArray>();
  private next = 1;
  uploads = 0;
  uploadBytes = 0;
  downloads = 0;
  downloadBytes = 0;
  frees = 0;
  kernels = 0;
  /** Resolves kernels and copies only when released (to test what happens while they run). */
  gate: Promise<void> | null = null;

  get liveBytes(): number {
    let b = 0;
    for (const a of this.buffers.values()) b += a.data.byteLength;
    return b;
  }

  private get(id: number, what: string): NDArray {
    const a = this.buffers.get(id);
    if (!a) throw new Error(`${what}: no device buffer ${id}`);
    return a;
  }

  /** A buffer that arrived device to device (a fake IPC import): counted as no upload. */
  adopt(a: NDArray): number {
    return this.put(a);
  }

  private put(a: NDArray): number {
    const id = this.next++;
    this.buffers.set(id, copy(a));
    return id;
  }

  async upload(a: NDArray): Promise<number> {
    if (this.gate) await this.gate;
    this.uploads++;
    this.uploadBytes += a.data.byteLength;
    return this.put(a);
  }

  async download(ref: DeviceArrayRef): Promise<NDArray> {
    const a = this.get(ref.id, 'download');
    if (this.gate) await this.gate;
    this.downloads++;
    this.downloadBytes += a.data.byteLength;
    return copy({ ...a, shape: ref.shape });
  }

  free(id: number): void {
    if (!this.buffers.delete(id)) throw new Error(`free: no device buffer ${id} (double free?)`);
    this.frees++;
  }

  async runProgram(program: Parameters<DeviceApi['runProgram']>[0], inputs: Parameters<DeviceApi['runProgram']>[1]) {
    const values = inputs.map((v) => (isDeviceRef(v) ? { kind: 'array' as const, array: copy({ ...this.get(v.id, 'runProgram'), shape: v.shape }) } : v));
    if (this.gate) await this.gate;
    this.kernels++;
    const out = runProgram(program, values);
    if (out.kind === 'array') return { id: this.put(out.array) };
    return { value: out };
  }

  /** QR / SVD of the stacked row blocks by the js kernels (which apply the js conventions). */
  async factor(blocks: DeviceArrayRef[], m: number, n: number, wantSvd: boolean): Promise<number[]> {
    const a = stackRows(blocks.map((b) => ({ ...this.get(b.id, 'factor'), shape: b.shape })), 'factor');
    if (a.shape[0] !== m || a.shape[1] !== n) throw new Error(`factor: the blocks make [${a.shape.join(', ')}], not [${m}, ${n}]`);
    if (this.gate) await this.gate;
    this.kernels++;
    if (wantSvd) {
      const f = svd(a);
      return [this.put(f.u), this.put(f.s), this.put(f.vt)];
    }
    const f = qr(a);
    return [this.put(f.q), this.put(f.r)];
  }

  async rows(a: DeviceArrayRef, start: number, count: number): Promise<number> {
    const A = this.get(a.id, 'rows');
    const cols = a.shape[1];
    if (start + count > a.shape[0]) throw new Error(`rows: [${start}, ${start + count}) beyond ${a.shape[0]} rows`);
    if (this.gate) await this.gate;
    return this.put({ dtype: A.dtype, shape: [count, cols], data: A.data.slice(start * cols, (start + count) * cols) });
  }

  /** Shared ids hold the same array object: freeing one leaves the other readable. */
  share(id: number): number {
    const a = this.get(id, 'share');
    const twin = this.next++;
    this.buffers.set(twin, a);
    return twin;
  }

  async matmul(a: DeviceArrayRef, b: DeviceArrayRef, c0: DeviceArrayRef | null): Promise<number> {
    const A = this.get(a.id, 'matmul a');
    const B = this.get(b.id, 'matmul b');
    const C0 = c0 ? this.get(c0.id, 'matmul c0') : undefined;
    if (this.gate) await this.gate;
    this.kernels++;
    return this.put(matmul({ ...A, shape: a.shape }, { ...B, shape: b.shape }, C0 && { ...C0, shape: c0!.shape }));
  }
}
