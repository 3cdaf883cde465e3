/**
 * tfjs's Relu and Softmax gradients in one device op each on gpuflow-cuda, and the gradient of
 * dropout's device op (DROPOUT) (a training batch of the
 * MNIST-shaped model ran relu's as step + multiply per layer and softmax's as four ops:
 * bench/tuning/batch-ops.ts). tfjs's gradient registry is global, so each override runs tfjs's
 * own gradient on every other backend, and on gpuflow-cuda wherever the fused kernel does not
 * cover the case (checked here: RELU_GRAD and SOFTMAX_GRAD have no cpu version to fall back to).
 */
import * as tf from '@tensorflow/tfjs';
import { GPUFLOW_CUDA } from './backend';
import { DROPOUT, RELU_GRAD, SOFTMAX_GRAD } from './kernels';

function base(kernelName: string): tf.GradConfig {
  const g = tf.getGradient(kernelName);
  if (!g) throw new Error(`gpuflow-cuda: tfjs has no gradient for ${kernelName} to fuse`);
  return g;
}

let registered = false;

export function registerFusedGradients(): void {
  if (registered) return;
  registered = true;
  const relu = base('Relu');
  tf.registerGradient({
    kernelName: 'Relu',
    inputsToSave: ['x'],
    gradFunc: (dy, saved, attrs) => {
      const [x] = saved;
      const d = dy as tf.Tensor;
      if (tf.getBackend() !== GPUFLOW_CUDA || d.dtype !== 'float32' || x.dtype !== 'float32' || d.shape.join() !== x.shape.join()) return relu.gradFunc(dy, saved, attrs);
      return { x: () => tf.engine().runKernel(RELU_GRAD, { dy: d, x }) as tf.Tensor };
    },
  });
  // Dropout's gradient is dy times the same mask: the same op, the same seed.
  tf.registerGradient({
    kernelName: DROPOUT,
    gradFunc: (dy, _saved, attrs) => ({ x: () => tf.engine().runKernel(DROPOUT, { x: dy as tf.Tensor }, attrs as unknown as tf.NamedAttrMap) as tf.Tensor }),
  });
  const softmax = base('Softmax');
  tf.registerGradient({
    kernelName: 'Softmax',
    outputsToSave: [true],
    gradFunc: (dy, saved, attrs) => {
      const [y] = saved;
      const d = dy as tf.Tensor;
      const dim = Number((attrs as { dim?: number } | undefined)?.dim ?? -1);
      const last = dim === -1 || dim === y.shape.length - 1;
      if (tf.getBackend() !== GPUFLOW_CUDA || !last || d.dtype !== 'float32' || y.dtype !== 'float32' || d.shape.join() !== y.shape.join() || y.rank === 0) return softmax.gradFunc(dy, saved, attrs);
      return { logits: () => tf.engine().runKernel(SOFTMAX_GRAD, { dy: d, y }) as tf.Tensor };
    },
  });
}
