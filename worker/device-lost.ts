/**
 * A lost device, as the worker sees it. The native addon rejects a CUDA call whose error means
 * the device is gone or unusable (native/src/cuda/common.h `deviceLost`: cudaErrorNoDevice,
 * cudaErrorDevicesUnavailable, ECC uncorrectable, cudaErrorIllegalAddress, cudaErrorLaunchFailure...)
 * with `code: 'GPUFLOW_DEVICE_LOST'` and `cudaError: '<name>'`. The worker reports such a failure
 * with task error code `device`, so main marks the worker gone and runs the task elsewhere; any
 * other error is the task's own and fails the run. The code, not the message, decides.
 */

/** The `code` the addon sets (native/src/device_lost_napi.h, used by addon.cc's Job). */
export const DEVICE_LOST_CODE = 'GPUFLOW_DEVICE_LOST';

export type DeviceLostError = Error & { code: typeof DEVICE_LOST_CODE; cudaError: string };

export function isDeviceLost(e: unknown): e is DeviceLostError {
  return e instanceof Error && (e as { code?: unknown }).code === DEVICE_LOST_CODE;
}

/** The error the addon rejects with, built in JS (fault injection, tests): same message form, code and name. */
export function deviceLostError(what: string, description: string, cudaError: string): DeviceLostError {
  return Object.assign(new Error(`CUDA ${what}: ${description} (${cudaError})`), { code: DEVICE_LOST_CODE, cudaError } as const);
}
