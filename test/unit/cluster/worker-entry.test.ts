/**
 * The worker's tsx loader is named by absolute file URL, never the bare `tsx` that a child resolves
 * from its working directory (a `gpuflow run` started outside the checkout had every worker die
 * with "Cannot find package 'tsx'" and the run fail after the start retries).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { workerEntry } from '../../../main/cluster/worker-entry';

describe('workerEntry from the TypeScript sources', () => {
  it('imports tsx by an absolute URL of an existing loader file', () => {
    const { script, execArgv } = workerEntry();
    expect(script.endsWith('worker/boot.ts')).toBe(true);
    expect(existsSync(script)).toBe(true);
    expect(execArgv[0]).toBe('--import');
    expect(execArgv[1]).toMatch(/^file:\/\//);
    expect(existsSync(fileURLToPath(execArgv[1]!))).toBe(true);
  });
});
