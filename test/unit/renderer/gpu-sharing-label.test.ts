/**
 * The run view's label for GPU workers per GPU (RunStats.gpuWorkersPerDevice, renderer/ui/
 * GpuSharing.tsx under the result's status): shown, with why in its tooltip, for a run that
 * trained on several per GPU; nothing for one per GPU or no GPU. (The component's text and title
 * are this function's; test files are type-checked without JSX, as left-out-workers.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import type { RunStats } from '../../../common/results';
import { gpuSharingLabel } from '../../../renderer/logic/gpu-sharing';

const why = 'largest trial 74496 multiply-adds per row, within [16000, 74496]: 4 trials per GPU at once (measured 2.4x one on an H100)';
const stats = (gpuWorkersPerDevice?: RunStats['gpuWorkersPerDevice']): RunStats => ({
  tasks: 9,
  durationMs: 100,
  workers: [],
  transfers: { count: 0, bytes: 0 },
  restarts: 0,
  ...(gpuWorkersPerDevice ? { gpuWorkersPerDevice } : {}),
});

describe('GPU workers per GPU in the run view', () => {
  it('labels a run that trained 4 per GPU, why in the tooltip', () => {
    expect(gpuSharingLabel(stats({ perDevice: 4, why }))).toEqual({ text: '4 GPU workers per GPU', why });
    expect(gpuSharingLabel(stats({ perDevice: 2, why: 'GPUFLOW_GPU_WORKERS_PER_DEVICE=2' }))?.text).toBe('2 GPU workers per GPU');
  });

  it('shows nothing for one per GPU or a run without GPU workers', () => {
    expect(gpuSharingLabel(stats({ perDevice: 1, why: 'one per GPU (default)' }))).toBeNull();
    expect(gpuSharingLabel(stats())).toBeNull();
  });
});
