/**
 * Counts what a gpuflow-cuda backend asks of its device (bench/tuning/batch-ops.ts, the launch
 * tests): ops by name (tfRun's op code, and for Unary / Binary / Reduce / Optimizer the sub-op),
 * uploads and reads with their bytes, allocs and frees. Every device op is one kernel launch (or
 * one cuBLAS call) and every upload or read one host <-> device copy, the per-batch costs that
 * four training processes contend for (docs/performance.md, issue 26).
 */
import { Bop, OptKind, Rop, TfOp, Uop } from '../../../../native/tf-ops';
import type { TfDevice } from './device';

export interface TfOpCounts {
  ops: Record<string, number>;
  opCount: number;
  /** sizes: each upload's bytes, in order (which constants go up anew). */
  uploads: { count: number; bytes: number; sizes: number[] };
  reads: { count: number; bytes: number };
  allocs: number;
  frees: number;
}

const nameOf = (table: Record<string, number>, code: number): string => Object.keys(table).find((k) => table[k] === code) ?? String(code);

/** tfRun's op as a name: 'Binary.Add', 'Gemm', 'Optimizer.Adam'. */
export function tfOpName(op: number, args: Float64Array): string {
  const base = nameOf(TfOp, op);
  if (op === TfOp.Unary) return `${base}.${nameOf(Uop, args[0])}`;
  if (op === TfOp.Binary) return `${base}.${nameOf(Bop, args[0])}`;
  if (op === TfOp.Reduce) return `${base}.${nameOf(Rop, args[0])}`;
  if (op === TfOp.Optimizer) return `${base}.${nameOf(OptKind, args[0])}`;
  return base;
}

const zero = (): TfOpCounts => ({ ops: {}, opCount: 0, uploads: { count: 0, bytes: 0, sizes: [] }, reads: { count: 0, bytes: 0 }, allocs: 0, frees: 0 });

/** `device` with every call counted; `take()` returns the counts since the last take and resets. */
export function countingDevice(device: TfDevice): { device: TfDevice; take(): TfOpCounts } {
  let c = zero();
  return {
    device: {
      tfAlloc: (elems, dtype) => (c.allocs++, device.tfAlloc(elems, dtype)),
      tfWrite: (id, src) => (c.uploads.count++, (c.uploads.bytes += src.byteLength), c.uploads.sizes.push(src.byteLength), device.tfWrite(id, src)),
      tfRead: (id, dst) => (c.reads.count++, (c.reads.bytes += dst.byteLength), device.tfRead(id, dst)),
      tfRun: (op, args) => {
        const name = tfOpName(op, args);
        c.ops[name] = (c.ops[name] ?? 0) + 1;
        c.opCount++;
        device.tfRun(op, args);
      },
      tfSync: () => device.tfSync(),
      cudaResidentFree: (id) => (c.frees++, device.cudaResidentFree(id)),
    },
    take() {
      const out = c;
      c = zero();
      out.ops = Object.fromEntries(Object.entries(out.ops).sort(([a], [b]) => a.localeCompare(b)));
      return out;
    },
  };
}
