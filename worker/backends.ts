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

/**
 * Loads an optional backend module; absent or broken modules are reported, not thrown. The
 * import is a static thunk so bundlers (electron-vite, the GPU-machine bundle) include the module.
 */
async function optional(load: () => Promise<Record<string, unknown>>, what: string, exportName: string, ...args: unknown[]): Promise<ArrayBackend | { unavailable: string }> {
  try {
    const mod = await load();
    const factory = mod[exportName];
    if (typeof factory !== 'function') return { unavailable: `${what} has no ${exportName}` };
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
        ? optional(() => import('./kernels/cuda'), 'kernels/cuda', 'createWarmCudaBackend')
        : Promise.resolve({ unavailable: `${config.kind} worker: cuda runs on GPU workers only` }),
    'native-cpu': () => optional(() => import('./kernels/native-cpu'), 'kernels/native-cpu', 'createNativeCpuBackend', config.threads),
    js: async () => createJsBackend(),
  };
  const backends: ArrayBackend[] = [];
  const status: BackendStatus[] = [];
  for (const name of config.backends) {
    const made = await factories[name]();
    if ('unavailable' in made) status.push({ name, available: false, reason: made.unavailable });
    else {
      backends.push(made);
      status.push({ name, available: true });
    }
  }
  // Ops the chosen backends lack (combines, linear algebra steps) still run on js; but a
  // backend the user asked for by name must exist, or the worker refuses to start.
  if (backends.length === 0) {
    throw new Error(`no requested backend is available: ${status.map((s) => `${s.name}: ${s.reason}`).join('; ')}`);
  }
  if (!backends.some((b) => b.name === 'js')) backends.push(createJsBackend());
  return { backends, status };
}
