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
 *   GPUFLOW_FAULT_START_DELAY=<workerId>:<ms>  that worker waits ms before its backends load, as
 *     a GPU worker whose CUDA context the driver makes last (the run starts without it).
 *
 * A kernel call is one backend call (runProgram, matmul, qr, svd): one per program task. The fault
 * sits between the task and its backend, so the error takes the same path as a real one.
 */
import type { ArrayBackend } from './kernels/backend';
import { deviceLostError } from './device-lost';

type Fault = 'device-lost' | 'kernel-error';

/** `name`'s <workerId>:<n> (null when unset), or an error naming the variable and what n counts. */
function workerCount(name: string, counts: string, env: NodeJS.ProcessEnv): { id: string; n: number } | null {
  const v = env[name];
  if (v === undefined || v === '') return null;
  const m = /^([\w.-]+):(\d+)$/.exec(v.trim());
  if (!m) throw new Error(`${name} must be <workerId>:<${counts}>, got '${v}'`);
  return { id: m[1], n: Number(m[2]) };
}

/** The faults set for this worker, or an error naming the variable when one is malformed. */
export function faultsFor(workerId: string, env: NodeJS.ProcessEnv = process.env): { fault: Fault; after: number } | null {
  const vars: Array<[string, Fault]> = [
    ['GPUFLOW_FAULT_DEVICE_LOST_AFTER', 'device-lost'],
    ['GPUFLOW_FAULT_KERNEL_ERROR_AFTER', 'kernel-error'],
  ];
  for (const [name, fault] of vars) {
    const w = workerCount(name, 'n kernel calls', env);
    if (w?.id === workerId) return { fault, after: w.n };
  }
  return null;
}

/** True when this start of the worker must fail (GPUFLOW_FAULT_START_EXIT; throws on a malformed value). */
export function failsToStart(workerId: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const w = workerCount('GPUFLOW_FAULT_START_EXIT', 'n tries', env);
  return w?.id === workerId && Number(env.GPUFLOW_START_ATTEMPT ?? '1') <= w.n;
}

/** Milliseconds this worker's start waits (GPUFLOW_FAULT_START_DELAY; 0 when unset or another's; throws on a malformed value). */
export function startDelayMs(workerId: string, env: NodeJS.ProcessEnv = process.env): number {
  const w = workerCount('GPUFLOW_FAULT_START_DELAY', 'ms', env);
  return w?.id === workerId ? w.n : 0;
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
