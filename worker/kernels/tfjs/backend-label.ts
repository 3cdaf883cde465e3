/** The backend field of a tuning task's run record. */
import type { BackendSelection, TfjsBackendName } from './backend';

/** "tfjs:wasm", or "tfjs:wasm (GPU worker training on a CPU backend)" when a GPU worker got no GPU. */
export function backendLabel(s: BackendSelection, backend: TfjsBackendName = s.backend): string {
  return s.gpuRequestedButCpu ? `tfjs:${backend} (GPU worker training on a CPU backend)` : `tfjs:${backend}`;
}
