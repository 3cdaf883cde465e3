/**
 * tfjs-layers' categorical cross-entropy on gpuflow-cuda as one op forward and one backward (a
 * training batch of the MNIST-shaped model ran it as 7 ops and its gradient as about 16, with
 * 4 uploads of constants: bench/tuning/batch-ops.ts). The same formula, step by step in float32:
 * q = p / sum(p) per row, c = clip(q, eps, 1 - eps), loss = -sum(t log c); its gradient is the
 * chain of tfjs's op gradients (neg, sum, mul, log, clip's mask, div with its broadcast divisor),
 * so a trial's loss curve stays within float32 rounding of the cpu backend's.
 * models.ts puts it in place of the compiled loss function on gpuflow-cuda; on any other backend
 * it is tfjs-layers' own.
 */
import * as tf from '@tensorflow/tfjs';
import { GPUFLOW_CUDA } from './backend';
import { CROSS_ENTROPY, CROSS_ENTROPY_GRAD } from './kernels';

/** tfjs-layers' clip bounds (its epsilon(): the backend's, 1e-7 here as on cpu), as float32 values. */
function bounds(): { lo: number; hi: number } {
  const eps = tf.backend().epsilon();
  return { lo: Math.fround(eps), hi: Math.fround(1 - eps) };
}

let registered = false;

/** The gradient of CROSS_ENTROPY (with respect to the labels too, by tfjs ops: rarely asked). */
export function registerCrossEntropyGradient(): void {
  if (registered) return;
  registered = true;
  tf.registerGradient({
    kernelName: CROSS_ENTROPY,
    inputsToSave: ['labels', 'probs'],
    gradFunc: (dy, saved, attrs) => {
      const [labels, probs] = saved;
      const { lo, hi } = attrs as unknown as { lo: number; hi: number };
      const d = dy as tf.Tensor;
      return {
        probs: () => tf.engine().runKernel(CROSS_ENTROPY_GRAD, { dy: d, labels, probs }, { lo, hi }) as tf.Tensor,
        labels: () => tf.neg(tf.mul(tf.expandDims(d, -1), tf.log(tf.clipByValue(tf.div(probs, tf.sum(probs, -1, true)), lo, hi)))),
      };
    },
  });
}

/**
 * tfjs-layers' categoricalCrossentropy(yTrue, yPred): for rows x k float32 probabilities on
 * gpuflow-cuda in one op, else tfjs-layers' own (another backend has no such kernel).
 */
export function fusedCategoricalCrossentropy(yTrue: tf.Tensor, yPred: tf.Tensor): tf.Tensor {
  if (tf.getBackend() !== GPUFLOW_CUDA || yPred.rank !== 2 || yPred.dtype !== 'float32' || yTrue.shape.join() !== yPred.shape.join()) return tf.metrics.categoricalCrossentropy(yTrue, yPred);
  return tf.engine().runKernel(CROSS_ENTROPY, { labels: tf.cast(yTrue, 'float32'), probs: yPred }, { ...bounds() }) as tf.Tensor;
}
