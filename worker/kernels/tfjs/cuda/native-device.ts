/**
 * The addon as the gpuflow-cuda backend's device: registers the backend over it when it has CUDA
 * and the tfjs calls, else says why not (the selection records the reason).
 */
import { loadNative } from '../../../../native/index';
import { hasTfCalls } from './device';
import { registerGpuflowCuda } from './register';

/** null when registered, else why the backend cannot run in this process. */
export function registerOnNativeAddon(): string | null {
  const n = loadNative();
  if ('unavailable' in n) return n.unavailable;
  if (!hasTfCalls(n.addon)) return 'the native addon predates the tfjs kernels (rebuild: node native/build.mjs)';
  const status = n.addon.cudaStatus();
  if (!status.cuda) return status.cudaReason ?? 'no CUDA device';
  registerGpuflowCuda(() => n.addon);
  return null;
}
