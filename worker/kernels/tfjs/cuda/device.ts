/**
 * What the gpuflow-cuda backend needs of a device: the addon's tfjs calls (native/src/tf_napi.cc)
 * and the free of a buffer. The real addon and the fake one (native/fake-cuda.ts, tests on a
 * machine without a GPU) both provide it.
 */
import type { NativeAddon } from '../../../../native/addon-types';

export type TfDevice = Pick<NativeAddon, 'tfAlloc' | 'tfWrite' | 'tfRead' | 'tfRun' | 'tfSync' | 'cudaResidentFree'>;

/** The addon has the tfjs calls (an older build lacks them). */
export function hasTfCalls(addon: NativeAddon): boolean {
  return typeof addon.tfAlloc === 'function' && typeof addon.tfRun === 'function';
}
