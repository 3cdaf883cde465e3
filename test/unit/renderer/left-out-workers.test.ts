/** The results panel's warning for workers a run went without (renderer/logic/left-out.ts). */
import { describe, expect, it } from 'vitest';
import { leftOutWarning } from '../../../renderer/logic/left-out';

describe('leftOutWarning', () => {
  it('names each worker left out with its reason', () => {
    const reason = 'left out: did not start after 3 tries: worker vgpu1 ended before it was ready';
    expect(leftOutWarning({ leftOut: [{ worker: 'vgpu1', reason }, { worker: 'gpu0', reason: 'device lost: gone' }] })).toBe(`Ran without vgpu1, gpu0: vgpu1 ${reason}; gpu0 device lost: gone`);
  });

  it('is null for a run on every worker', () => {
    expect(leftOutWarning({})).toBeNull();
    expect(leftOutWarning({ leftOut: [] })).toBeNull();
  });
});
