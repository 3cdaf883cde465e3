/**
 * An epoch's training steps on gpuflow-cuda without a read per batch: tfjs-layers' trainOnBatch
 * reads each batch's loss back (a copy and a wait for the device every batch, which four training
 * processes at once contend for: docs/performance.md). Here each batch runs the same training
 * function trainOnBatch runs (the model's own, from tfjs-layers' makeTrainFunction) and adds loss
 * x rows to a running sum on the device (LOSS_SUM, a double: the host's sum in the host's order
 * and rounding, so the epoch's loss is the same number); the sum is read once, at the epoch's end.
 *
 * makeTrainFunction is a private method of the Sequential's inner LayersModel: looked up and
 * checked here, and where it is not as expected the epoch keeps trainOnBatch.
 */
import * as tf from '@tensorflow/tfjs';
import { GPUFLOW_CUDA } from './backend';
import { LOSS_SUM } from './kernels';

type TrainFunction = (data: tf.Tensor[]) => unknown;

export interface DeviceEpoch {
  /** One batch's training step; its loss x rows joins the sum on the device. */
  step(xb: tf.Tensor, yb: tf.Tensor, rows: number): void;
  /** The epoch's sum of batch loss x rows (one read), and the sum's buffer freed. */
  finish(): number;
  /** Frees the sum's buffer if finish did not (an epoch that threw). */
  release(): void;
}

function trainFunctionOf(model: tf.LayersModel): TrainFunction | undefined {
  const inner: unknown = model instanceof tf.Sequential ? Reflect.get(model, 'model') : model;
  if (!(inner instanceof tf.LayersModel)) return undefined;
  const make: unknown = Reflect.get(inner, 'makeTrainFunction');
  if (typeof make !== 'function') return undefined;
  const f: unknown = make.call(inner);
  return typeof f === 'function' ? (data: tf.Tensor[]) => f(data) as unknown : undefined;
}

/** The device epoch for `model`, or undefined off gpuflow-cuda or where tfjs-layers differs. */
export function deviceEpoch(model: tf.LayersModel): DeviceEpoch | undefined {
  if (tf.getBackend() !== GPUFLOW_CUDA || model.inputs.length !== 1 || model.outputs.length !== 1) return undefined;
  const train = trainFunctionOf(model);
  if (!train) return undefined;
  let acc: tf.Tensor | undefined;
  return {
    step(xb, yb, rows) {
      const out = train([xb, yb]);
      if (!Array.isArray(out) || !out.every((t): t is tf.Tensor => t instanceof tf.Tensor) || out.length === 0) {
        throw new Error("gpuflow-cuda: tfjs-layers' training function did not return its loss tensors");
      }
      const loss = out[0];
      const next = tf.engine().runKernel(LOSS_SUM, acc ? { acc, loss } : { loss }, { n: rows }) as tf.Tensor;
      tf.dispose([...out, ...(acc ? [acc] : [])]);
      acc = next;
    },
    finish() {
      if (!acc) return 0;
      const bits = acc.dataSync();
      acc.dispose();
      acc = undefined;
      return new Float64Array(bits.buffer, bits.byteOffset, 1)[0];
    },
    release() {
      acc?.dispose();
      acc = undefined;
    },
  };
}
