/** A fake nvidia-smi for CLI tests of GPU workers without a GPU (with GPUFLOW_BENCH_FAKE_CUDA). */
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A fake nvidia-smi listing `count` GPUs (two by default); returns its path. */
export function fakeNvidiaSmi(count = 2): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'gpuflow-smi-'));
  const smi = path.join(dir, 'nvidia-smi');
  const line = (i: number) => `${i}, GPU-1111111${i}-2222-3333-4444-555555555555, Test GPU, 81559, 0, 0, 00000000:1${i}:00.0, 580.1`;
  writeFileSync(smi, `#!/bin/sh\n${Array.from({ length: count }, (_, i) => `echo "${line(i)}"`).join('\n')}\n`);
  chmodSync(smi, 0o755);
  return smi;
}
