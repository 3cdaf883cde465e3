/**
 * Whether this worker keeps chunks on its device between tasks: on by default for GPU workers
 * whose cuda backend loaded, since the GPU checks (test/gpu/resident-checks.ts) and an engine run
 * passed on the GPU machine (bench/results/native-gpu-resident-h200-*.md);
 * GPUFLOW_DEVICE_RESIDENT=0 turns it off. Device memory is bounded by the worker's memory limit,
 * or GPUFLOW_DEVICE_RESIDENT_BYTES when smaller.
 *
 * With residency on, chunks move between GPU workers by CUDA IPC (worker/resident/ipc.ts) unless
 * GPUFLOW_IPC=0; `ipcReason` says why IPC is off, for the transfer records.
 */
import type { WorkerConfig } from '../../common/messages';
import { loadNative } from '../../native/index';
import type { ArrayBackend } from '../kernels/backend';
import { addonDeviceApi, type DeviceApi } from './device-api';
import { addonIpcApi, type IpcApi } from './ipc';

export interface Residency {
  api: DeviceApi | null;
  limit: number;
  /** Why residency is off ('' when on). */
  reason: string;
  /** CUDA IPC transfers to and from other GPU workers; null when off, `ipcReason` saying why. */
  ipc: IpcApi | null;
  ipcReason: string;
}

export function residencyFor(cfg: WorkerConfig, backends: ArrayBackend[], env: NodeJS.ProcessEnv = process.env): Residency {
  const off = (reason: string): Residency => ({ api: null, limit: 0, reason, ipc: null, ipcReason: `this worker keeps no device copies (${reason})` });
  if (env.GPUFLOW_DEVICE_RESIDENT === '0') return off('GPUFLOW_DEVICE_RESIDENT=0');
  if (cfg.kind !== 'gpu') return off(`${cfg.kind} worker`);
  if (!backends.some((b) => b.name === 'cuda')) return off('the cuda backend is not loaded');
  const loaded = loadNative();
  if ('unavailable' in loaded) return off(loaded.unavailable);
  const cap = Number(env.GPUFLOW_DEVICE_RESIDENT_BYTES);
  const limit = Number.isFinite(cap) && cap > 0 ? Math.min(cap, cfg.memoryLimit) : cfg.memoryLimit;
  const ipcOff = env.GPUFLOW_IPC === '0' ? 'GPUFLOW_IPC=0' : typeof loaded.addon.cudaIpcImport !== 'function' ? 'the addon predates CUDA IPC' : '';
  return { api: addonDeviceApi(loaded.addon), limit, reason: '', ipc: ipcOff ? null : addonIpcApi(loaded.addon), ipcReason: ipcOff };
}
