/**
 * Registers the gpuflow-cuda backend with tfjs: its own kernels (kernels.ts), and for every other
 * kernel tfjs's cpu backend has, a fallback that copies the inputs to the host, runs the cpu
 * kernel on tfjs's cpu backend (its own storage: the copies are freed after), and uploads the
 * outputs. Each fallback run is counted per
 * kernel name (and warned once per name), so a trial's record says what did not run on the GPU;
 * a kernel neither backend has fails as tfjs fails for any backend.
 */
import * as tf from '@tensorflow/tfjs';
import { GPUFLOW_CUDA, GpuflowCudaBackend } from './backend';
import type { TfDevice } from './device';
import { CUDA_KERNELS, type CudaKernel } from './kernels';
import { registerFusedGradients } from './gradients';
import { registerCrossEntropyGradient } from './cross-entropy';

const fallbackCounts = new Map<string, number>();

/** Fallback runs per kernel name since the process started (the trial record takes differences). */
export function cpuFallbackCounts(): Record<string, number> {
  return Object.fromEntries(fallbackCounts);
}

/** counts now minus counts before, names with no new runs left out. */
export function fallbacksSince(before: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, n] of fallbackCounts) if (n > (before[name] ?? 0)) out[name] = n - (before[name] ?? 0);
  return out;
}

/** tfjs's own cpu backend (registered by @tensorflow/tfjs; found, and made if need be, by name). */
function cpuBackend(): tf.KernelBackend {
  const b = tf.findBackend('cpu');
  if (!b) throw new Error("gpuflow-cuda: tfjs's cpu backend is not registered, so kernels without a device version cannot run");
  return b;
}

type Inputs = Record<string, tf.TensorInfo | undefined>;

/** Runs tfjs's cpu kernel `name` on copies of the inputs; outputs come back as device tensors. */
function onCpu(name: string, b: GpuflowCudaBackend, inputs: Inputs, attrs: Record<string, unknown>): tf.TensorInfo | tf.TensorInfo[] {
  const kernel = tf.getKernel(name, 'cpu');
  if (!kernel) throw new Error(`gpuflow-cuda: kernel '${name}' has no gpuflow-cuda or cpu implementation`);
  if (!fallbackCounts.has(name)) console.warn(`gpuflow-cuda: kernel '${name}' runs on the CPU (copied to the host and back); counted in the trial's cpuFallbacks`);
  fallbackCounts.set(name, (fallbackCounts.get(name) ?? 0) + 1);
  const host = cpuBackend();
  const made: tf.DataId[] = [];
  const toHost = (t: tf.TensorInfo): tf.TensorInfo => {
    const dataId = host.write(b.readSync(t.dataId), t.shape, t.dtype);
    made.push(dataId);
    return { dataId, shape: t.shape, dtype: t.dtype };
  };
  // Concat, Pack and AddN take an array of tensors, the rest a record by name.
  const cpuInputs: unknown = Array.isArray(inputs)
    ? (inputs as tf.TensorInfo[]).map(toHost)
    : Object.fromEntries(Object.entries(inputs).flatMap(([k, t]) => (t ? [[k, toHost(t)]] : [])));
  try {
    const out = kernel.kernelFunc({ inputs: cpuInputs as tf.NamedTensorInfoMap, attrs: attrs as tf.NamedAttrMap, backend: host });
    const outs = Array.isArray(out) ? out : [out];
    const back = outs.map((o) => {
      made.push(o.dataId);
      return { dataId: b.write(host.readSync(o.dataId), o.shape, o.dtype), shape: o.shape, dtype: o.dtype };
    });
    return Array.isArray(out) ? back : back[0];
  } finally {
    for (const id of new Set(made)) host.disposeData(id, true);
  }
}

function wrap(name: string, own: CudaKernel | undefined): tf.KernelFunc {
  return ({ inputs, attrs, backend }) => {
    const b = backend as GpuflowCudaBackend;
    const a = (attrs ?? {}) as Record<string, unknown>;
    const i = inputs as Inputs;
    return (own && own(b, i, a)) ?? onCpu(name, b, i, a);
  };
}

let registered = false;

/**
 * Registers the backend (priority 0: never tfjs's default) over `device`, once per process;
 * `tf.setBackend('gpuflow-cuda')` then activates it.
 */
export function registerGpuflowCuda(device: () => TfDevice): void {
  if (registered) return;
  registered = true;
  tf.registerBackend(GPUFLOW_CUDA, () => new GpuflowCudaBackend(device()), 0);
  const names = new Set([...Object.keys(CUDA_KERNELS), ...tf.getKernelsForBackend('cpu').map((k) => k.kernelName)]);
  for (const name of names) tf.registerKernel({ kernelName: name, backendName: GPUFLOW_CUDA, kernelFunc: wrap(name, CUDA_KERNELS[name]) });
  registerFusedGradients();
  registerCrossEntropyGradient();
}

/** Kernel names that run on the device (the rest of the cpu backend's fall back). */
export const deviceKernelNames = (): string[] => Object.keys(CUDA_KERNELS).sort();
