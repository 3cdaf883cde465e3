/**
 * Whether a workflow's tasks will call cuBLAS / cuSOLVER on GPU workers (an op whose OpDef says
 * `deviceLibraries`). The engine asks its GPU workers to make those handles only then (`warm-libraries`, worker/cuda-warmup.ts), as the compile starts: on four H100s the
 * library warm-up beside a groupby's first kernels cost it about 50 ms (issue 30).
 */
import { OPS } from '../ops/registry';
import type { ValidWorkflow } from '../validate';

export function needsDeviceLibraries(wf: ValidWorkflow): boolean {
  return wf.doc.nodes.some((n) => OPS.get(n.op)?.deviceLibraries === true);
}
