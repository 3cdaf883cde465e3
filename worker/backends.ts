/**
 * Picks this worker's backends in preference order: GPU workers try `cuda`, CPU workers
 * `native-cpu`, and `js` always closes the list as the fallback. A backend that cannot load says
 * why; the reason is reported to main and shown by `gpuflow devices`.
 */
import type { WorkerConfig } from '../common/messages';
import type { ArrayBackend } from './kernels/backend';
import { createJsBackend } from './kernels/js';

export interface BackendStatus {
  name: string;
  available: boolean;
  reason?: string;
}

type Factory = () => Promise<ArrayBackend | { unavailable: string }>;

function isBackend(x: unknown): x is ArrayBackend {
  return typeof x === 'object' && x !== null && 'runProgram' in x && 'supportsProgram' in x;
}

/** Loads an optional backend module; absent or broken modules are reported, not thrown. */
async function optional(modulePath: string, exportName: string, ...args: unknown[]): Promise<ArrayBackend | { unavailable: string }> {
  try {
    const mod = (await import(/* @vite-ignore */ modulePath)) as Record<string, unknown>;
    const factory = mod[exportName];
    if (typeof factory !== 'function') return { unavailable: `${modulePath} has no ${exportName}` };
    const made: unknown = await factory(...args);
    if (isBackend(made)) return made;
    if (typeof made === 'object' && made !== null && 'unavailable' in made) return { unavailable: String(made.unavailable) };
    return { unavailable: `${exportName} returned something that is not a backend` };
  } catch (e) {
    return { unavailable: e instanceof Error ? e.message.split('\n')[0] : String(e) };
  }
}

export async function createBackends(config: WorkerConfig): Promise<{ backends: ArrayBackend[]; status: BackendStatus[] }> {
  const factories: Record<string, Factory> = {
    cuda: () =>
      config.kind === 'gpu'
        ? optional('./kernels/cuda', 'createCudaBackend')
        : Promise.resolve({ unavailable: `${config.kind} worker: cuda runs on GPU workers only` }),
    'native-cpu': () => optional('./kernels/native-cpu', 'createNativeCpuBackend', config.threads),
    js: async () => createJsBackend(),
  };
  const backends: ArrayBackend[] = [];
  const status: BackendStatus[] = [];
  const names = config.backends.includes('js') ? config.backends : [...config.backends, 'js' as const];
  for (const name of names) {
    const made = await factories[name]();
    if ('unavailable' in made) status.push({ name, available: false, reason: made.unavailable });
    else {
      backends.push(made);
      status.push({ name, available: true });
    }
  }
  return { backends, status };
}
