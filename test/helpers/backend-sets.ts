/**
 * The array backends a case runs on in-process: js alone, and native-cpu (2 threads) with js
 * behind it for the ops the addon does not take, where the addon loads on this machine.
 */
import { loadNative } from '../../native/index';
import type { ArrayBackend } from '../../worker/kernels/backend';
import { createJsBackend } from '../../worker/kernels/js';
import { createNativeCpuBackend } from '../../worker/kernels/native-cpu';

/** Whether the native addon loads here (tests of native-cpu skip without it). */
export const nativeLoads = !('unavailable' in loadNative());

/** A native-cpu backend of 2 threads; throws when the addon is absent (check `nativeLoads` first). */
export function nativeCpu(): ArrayBackend {
  const b = createNativeCpuBackend(2);
  if ('unavailable' in b) throw new Error(b.unavailable);
  return b;
}

/** [name, backends] for describe.each: js, then native-cpu over js where the addon loads. */
export function backendSets(): Array<[string, () => ArrayBackend[]]> {
  const sets: Array<[string, () => ArrayBackend[]]> = [['js', () => [createJsBackend()]]];
  if (nativeLoads) sets.push(['native-cpu', () => [nativeCpu(), createJsBackend()]]);
  return sets;
}
