// worker/kernels/tfjs/built-once.ts: the rows' cache a worker's trials share now that the rows
// are built off the JS thread (two trials asking at once must not build them twice).
import { describe, expect, it } from 'vitest';
import { builtOnce } from '../../../worker/kernels/tfjs/built-once';

describe('builtOnce', () => {
  it('shares one build between asks made while it runs, and keeps its value', async () => {
    const cache = new Map<string, Promise<number>>();
    let builds = 0;
    let finish: (v: number) => void = () => undefined;
    const build = () => {
      builds++;
      return new Promise<number>((resolve) => (finish = resolve));
    };
    const a = builtOnce(cache, 'k', build);
    const b = builtOnce(cache, 'k', build);
    finish(7);
    expect(await Promise.all([a, b, builtOnce(cache, 'k', build)])).toEqual([7, 7, 7]);
    expect(builds).toBe(1);
  });

  it('drops a failed build: the next ask builds again', async () => {
    const cache = new Map<string, Promise<string>>();
    const outcomes = [() => Promise.reject(new Error('no table t')), () => Promise.resolve('rows')];
    let i = 0;
    const build = () => outcomes[i++]!();
    await expect(builtOnce(cache, 'k', build)).rejects.toThrow('no table t');
    await Promise.resolve(); // the drop runs on the failed promise's settlement
    expect(await builtOnce(cache, 'k', build)).toBe('rows');
    expect(i).toBe(2);
  });
});
