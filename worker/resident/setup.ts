/**
 * Whether this worker keeps chunks on its device between tasks: on by default for GPU workers
 * whose cuda backend loaded, since the GPU checks (test/gpu/resident-checks.ts) and an engine run
 * passed on the GPU machine (bench/results/native-gpu-resident-h200-*.md);
 * GPUFLOW_DEVICE_RESIDENT=0 turns it off. Device memory is bounded by the worker's memory limit,
 * or GPUFLOW_DEVICE_RESIDENT_BYTES when smaller.
 */
import type { WorkerConfig } from '../../common/messages';
import { loadNative } from '../../native/index';
import type { ArrayBackend } from '../kernels/backend';
import { addonDeviceApi, type DeviceApi } from './device-api';

export interface Residency {
  api: DeviceApi | null;
  limit: number;
  /** Why residency is off ('' when on). */
  reason: string;
}

export function residencyFor(cfg: WorkerConfig, backends: ArrayBackend[], env: NodeJS.ProcessEnv = process.env): Residency {
  const off = (reason: string): Residency => ({ api: null, limit: 0, reason });
  if (env.GPUFLOW_DEVICE_RESIDENT === '0') return off('GPUFLOW_DEVICE_RESIDENT=0');
  if (cfg.kind !== 'gpu') return off(`${cfg.kind} worker`);
  if (!backends.some((b) => b.name === 'cuda')) return off('the cuda backend is not loaded');
  const loaded = loadNative();
  if ('unavailable' in loaded) return off(loaded.unavailable);
  const cap = Number(env.GPUFLOW_DEVICE_RESIDENT_BYTES);
  const limit = Number.isFinite(cap) && cap > 0 ? Math.min(cap, cfg.memoryLimit) : cfg.memoryLimit;
  return { api: addonDeviceApi(loaded.addon), limit, reason: '' };
}
