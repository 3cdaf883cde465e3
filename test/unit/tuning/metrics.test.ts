import { describe, expect, it } from 'vitest';
import { accuracy, binaryToTwoColumns, logLoss, meanSquaredError, r2Score } from '../../../worker/kernels/tfjs/metrics';

describe('metrics (hand-computed values)', () => {
  it('accuracy', () => {
    expect(accuracy([0, 1, 2, 1], [0.8, 0.1, 0.1, 0.2, 0.7, 0.1, 0.5, 0.4, 0.1, 0.3, 0.3, 0.4], 3)).toBe(0.5);
  });

  it('log-loss: sklearn docs example log_loss(["spam","ham","ham","spam"], [[.1,.9],[.9,.1],[.8,.2],[.35,.65]]) = 0.21616', () => {
    // classes sorted: ham = 0, spam = 1
    expect(logLoss([1, 0, 0, 1], [0.1, 0.9, 0.9, 0.1, 0.8, 0.2, 0.35, 0.65], 2)).toBeCloseTo(0.21616187468057912, 6);
    expect(logLoss([1], binaryToTwoColumns(new Float32Array([0])), 2)).toBeCloseTo(-Math.log(1.1920929e-7), 5);
  });

  it('mse and r2: sklearn docs examples', () => {
    // mean_squared_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]) = 0.375; r2_score(...) = 0.948...
    expect(meanSquaredError([3, -0.5, 2, 7], [2.5, 0, 2, 8])).toBe(0.375);
    expect(r2Score([3, -0.5, 2, 7], [2.5, 0, 2, 8])).toBeCloseTo(0.9486081370449679, 12);
    expect(r2Score([1, 1], [1, 1])).toBe(1);
    expect(r2Score([1, 1], [1, 2])).toBe(0);
  });

  it('refuses mismatched lengths', () => {
    expect(() => meanSquaredError([1, 2], [1])).toThrow('mse: 2 targets but 1 predictions');
  });
});
