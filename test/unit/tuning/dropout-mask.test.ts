// Dropout's mask is docs/random.md's Philox stream of float32 uniforms (the oracle here is
// PhiloxStream itself, the project's reference generator), scaled as tfjs's dropout scales.
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { PhiloxStream } from '../../../common/philox';
import { dropoutMask } from '../../../common/tuning/dropout-mask';
import { SeededDropout } from '../../../worker/kernels/tfjs/dropout';

describe('dropout mask', () => {
  it('keeps element i where the i-th float32 Philox uniform exceeds the rate, scaled by 1 / (1 - rate)', () => {
    const n = 1031, seed = 12345, rate = 0.3;
    const ref = new PhiloxStream(seed, 'uniform', 0, 1, true);
    const mask = dropoutMask(n, seed, rate);
    const scale = Math.fround(1 / Math.fround(0.7));
    for (let i = 0; i < n; i++) expect(mask[i]).toBe(ref.at(i) > rate ? scale : 0);
    const kept = mask.filter((v) => v !== 0).length / n;
    expect(kept).toBeGreaterThan(0.65);
    expect(kept).toBeLessThan(0.75);
  });

  it('the layer applies it on the cpu backend, a new mask per call', async () => {
    await tf.setBackend('cpu');
    const layer = new SeededDropout({ rate: 0.5, seed: 3 });
    layer.startEpoch(2);
    const x = tf.fill([2, 50], 2);
    const a = (layer.apply(x, { training: true }) as tf.Tensor).dataSync();
    const b = (layer.apply(x, { training: true }) as tf.Tensor).dataSync();
    expect(new Set(a)).toEqual(new Set([0, 4]));
    expect(Array.from(a)).not.toEqual(Array.from(b));
  });
});
