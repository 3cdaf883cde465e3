import { describe, expect, it } from 'vitest';
import { workerV8Flags } from '../../../main/cluster/fork-launcher';

describe('GPUFLOW_WORKER_V8_FLAGS', () => {
  it('passes --flags through, split on spaces', () => {
    expect(workerV8Flags({ GPUFLOW_WORKER_V8_FLAGS: ' --no-lazy-feedback-allocation  --max-semi-space-size=32 ' })).toEqual(['--no-lazy-feedback-allocation', '--max-semi-space-size=32']);
    expect(workerV8Flags({})).toEqual([]);
  });
  it('refuses anything that is not a --flag, naming it', () => {
    expect(() => workerV8Flags({ GPUFLOW_WORKER_V8_FLAGS: '--ok evil.js' })).toThrow(/'evil.js' is not a --flag/);
    expect(() => workerV8Flags({ GPUFLOW_WORKER_V8_FLAGS: '--require=/tmp/x;rm' })).toThrow(/is not a --flag/);
  });
});
