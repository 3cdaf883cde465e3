// A device whose calls do nothing (no arithmetic; reads give zeros), for timing the host's side
// of gpuflow-cuda: tfjs's engine, tfjs-layers, the backend's argument records and the addon-call
// boundary on the JS side, without any launch or copy. batch-host.ts and first-trial.ts use it.
import type { TfDevice } from '../../worker/kernels/tfjs/cuda/device';

export function nullDevice(): { device: TfDevice; calls: () => number; live: () => number } {
  const live = new Set<number>();
  let next = 1;
  let calls = 0;
  const device: TfDevice = {
    tfAlloc: () => (live.add(next), next++),
    tfWrite: () => undefined,
    tfRead: (_id, dst) => void dst.fill(0),
    tfRun: () => void calls++,
    tfSync: () => undefined,
    cudaResidentFree: (id) => live.delete(id),
  };
  return { device, calls: () => calls, live: () => live.size };
}
