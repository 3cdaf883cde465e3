/**
 * Test-only fault injection, read from the environment at worker start. Unset (the normal case),
 * or naming another worker, nothing is wrapped and nothing changes. Never set these in production.
 *
 *   GPUFLOW_FAULT_DEVICE_LOST_AFTER=<workerId>:<n>   that worker's device "disappears" after n
 *     kernel calls: every later call rejects with the error the cuda backend's addon gives for a
 *     lost device (code GPUFLOW_DEVICE_LOST, cudaErrorDevicesUnavailable; worker/device-lost.ts).
 *   GPUFLOW_FAULT_KERNEL_ERROR_AFTER=<workerId>:<n>  an ordinary kernel error instead (a plain
 *     Error, as the addon gives for cudaErrorInvalidValue): the task's own failure.
 *   GPUFLOW_FAULT_START_EXIT=<workerId>:<n>  that worker exits while starting (before `ready`) on
 *     its first n tries (the pool numbers them in GPUFLOW_START_ATTEMPT): the pool's retries.
 *
 * A kernel call is one backend call (runProgram, matmul, qr, svd): one per program task. The fault
 * sits between the task and its backend, so the error takes the same path as a real one.
 */
import type { ArrayBackend } from './kernels/backend';
import { deviceLostError } from './device-lost';

type Fault = 'device-lost' | 'kernel-error';

/** The faults set for this worker, or an error naming the variable when one is malformed. */
export function faultsFor(workerId: string, env: NodeJS.ProcessEnv = process.env): { fault: Fault; after: number } | null {
  const vars: Array<[string, Fault]> = [
    ['GPUFLOW_FAULT_DEVICE_LOST_AFTER', 'device-lost'],
    ['GPUFLOW_FAULT_KERNEL_ERROR_AFTER', 'kernel-error'],
  ];
  for (const [name, fault] of vars) {
    const v = env[name];
    if (v === undefined || v === '') continue;
    const m = /^([\w.-]+):(\d+)$/.exec(v.trim());
    if (!m) throw new Error(`${name} must be <workerId>:<n kernel calls>, got '${v}'`);
    if (m[1] === workerId) return { fault, after: Number(m[2]) };
  }
  return null;
}

/** True when this start of the worker must fail (GPUFLOW_FAULT_START_EXIT; throws on a malformed value). */
export function failsToStart(workerId: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.GPUFLOW_FAULT_START_EXIT;
  if (v === undefined || v === '') return false;
  const m = /^([\w.-]+):(\d+)$/.exec(v.trim());
  if (!m) throw new Error(`GPUFLOW_FAULT_START_EXIT must be <workerId>:<n tries>, got '${v}'`);
  return m[1] === workerId && Number(env.GPUFLOW_START_ATTEMPT ?? '1') <= Number(m[2]);
}

function failure(fault: Fault): Error {
  return fault === 'device-lost'
    ? deviceLostError('kernel launch', 'CUDA-capable device(s) is/are busy or unavailable', 'cudaErrorDevicesUnavailable')
    : new Error('CUDA kernel launch: invalid argument (cudaErrorInvalidValue)');
}

/** Wraps the backends so that kernel calls after the first `after` fail with the fault. */
export function injectFaults(backends: ArrayBackend[], f: { fault: Fault; after: number }): ArrayBackend[] {
  // Counted as calls start: a GPU worker runs many at once, and exactly `after` must get through.
  let started = 0;
  const gate = async <T>(call: () => Promise<T>): Promise<T> => {
    if (started >= f.after) throw failure(f.fault);
    started++;
    return call();
  };
  return backends.map((b): ArrayBackend => ({
    name: b.name,
    supportsProgram: (p) => b.supportsProgram(p),
    runProgram: (p, inputs) => gate(() => b.runProgram(p, inputs)),
    ...(b.matmul && { matmul: (a, x, c0) => gate(() => b.matmul!(a, x, c0)) }),
    ...(b.qr && { qr: (a) => gate(() => b.qr!(a)) }),
    ...(b.svd && { svd: (a) => gate(() => b.svd!(a)) }),
  }));
}
