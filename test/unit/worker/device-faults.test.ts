/**
 * The worker's view of a lost device: the addon's rejection (code GPUFLOW_DEVICE_LOST, set in
 * native/src/addon.cc) is classified by its code, not its text; the test-only fault injection
 * (worker/faults.ts) produces that same shape after n kernel calls, and nothing when unset.
 */
import { describe, expect, it } from 'vitest';
import type { ChunkProgram } from '../../../common/arrays';
import { DEVICE_LOST_CODE, deviceLostError, isDeviceLost } from '../../../worker/device-lost';
import { faultsFor, injectFaults } from '../../../worker/faults';
import { createJsBackend } from '../../../worker/kernels/js';

const region = { start: [0], step: [1], count: [4] };
const program: ChunkProgram = { dtype: 'float64', shape: [4], expr: { kind: 'leaf', leaf: { kind: 'arange', start: 0, step: 1, shape: [4], region } } };

describe('lost-device classification', () => {
  it('goes by the code the addon sets, not by the message', () => {
    // What Job::OnError rejects with for cudaErrorIllegalAddress (message from check() in common.h).
    const native = Object.assign(new Error('CUDA stream synchronize: an illegal memory access was encountered (cudaErrorIllegalAddress)'), { code: DEVICE_LOST_CODE, cudaError: 'cudaErrorIllegalAddress' });
    expect(isDeviceLost(native)).toBe(true);
    expect(isDeviceLost(deviceLostError('copy to host', 'no CUDA-capable device is detected', 'cudaErrorNoDevice'))).toBe(true);
    expect(deviceLostError('copy to host', 'no CUDA-capable device is detected', 'cudaErrorNoDevice').message).toBe('CUDA copy to host: no CUDA-capable device is detected (cudaErrorNoDevice)');
    // An ordinary CUDA error, a bug, or a lookalike message without the code: the task's own failure.
    expect(isDeviceLost(new Error('CUDA kernel launch: invalid argument (cudaErrorInvalidValue)'))).toBe(false);
    expect(isDeviceLost(new Error('an illegal memory access was encountered (cudaErrorIllegalAddress)'))).toBe(false);
    expect(isDeviceLost({ code: DEVICE_LOST_CODE })).toBe(false);
    expect(isDeviceLost(undefined)).toBe(false);
  });
});

describe('fault injection (test-only)', () => {
  it('is off when unset or aimed at another worker, and refuses a malformed value', () => {
    expect(faultsFor('vgpu1', {})).toBeNull();
    expect(faultsFor('vgpu1', { GPUFLOW_FAULT_DEVICE_LOST_AFTER: '' })).toBeNull();
    expect(faultsFor('vgpu1', { GPUFLOW_FAULT_DEVICE_LOST_AFTER: 'vgpu0:3' })).toBeNull();
    expect(faultsFor('vgpu1', { GPUFLOW_FAULT_DEVICE_LOST_AFTER: 'vgpu1:3' })).toEqual({ fault: 'device-lost', after: 3 });
    expect(faultsFor('gpu0', { GPUFLOW_FAULT_KERNEL_ERROR_AFTER: 'gpu0:0' })).toEqual({ fault: 'kernel-error', after: 0 });
    expect(() => faultsFor('vgpu1', { GPUFLOW_FAULT_DEVICE_LOST_AFTER: '3' })).toThrow(/GPUFLOW_FAULT_DEVICE_LOST_AFTER must be <workerId>:<n kernel calls>, got '3'/);
  });

  it('lets n kernel calls through, then rejects every call with the addon-shaped error', async () => {
    const [b] = injectFaults([createJsBackend()], { fault: 'device-lost', after: 2 });
    for (let i = 0; i < 2; i++) {
      const v = await b.runProgram(program, []);
      expect(v.kind === 'array' && [...v.array.data]).toEqual([0, 1, 2, 3]);
    }
    for (let i = 0; i < 2; i++) {
      const e: unknown = await b.runProgram(program, []).catch((x: unknown) => x);
      expect(isDeviceLost(e)).toBe(true);
      expect((e as Error).message).toMatch(/\(cudaErrorDevicesUnavailable\)$/);
    }
    const [k] = injectFaults([createJsBackend()], { fault: 'kernel-error', after: 0 });
    const e: unknown = await k.runProgram(program, []).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(Error);
    expect(isDeviceLost(e)).toBe(false);
  });
});
