/**
 * Dropout whose masks are a function of (seed, epoch, batch), so training is reproducible and a
 * trial resumed from disk draws the masks it would have drawn had it never stopped.
 *
 * Why not tf.layers.dropout({seed})? It passes the same seed on every call, so every batch gets
 * the same mask; without a seed it uses Math.random and runs cannot be repeated. Why not
 * tf.dropout(x, rate, shape, seed)? Its mask comes from seedrandom on the host; ours is Philox
 * (dropout-mask.ts), which gpuflow-cuda draws on the device with the same bits.
 */
import * as tf from '@tensorflow/tfjs';
import { deriveSeed, SeedTag } from '../../../common/tuning/random';
import { GPUFLOW_CUDA } from './cuda/backend';
import { DROPOUT } from './cuda/kernels';
import { dropoutMask } from '../../../common/tuning/dropout-mask';

export interface SeededDropoutArgs {
  rate: number;
  seed: number;
  name?: string;
}

export class SeededDropout extends tf.layers.Layer {
  static readonly className = 'GpuflowSeededDropout';
  readonly rate: number;
  readonly seed: number;
  private epoch = 0;
  private call_ = 0;

  constructor(args: SeededDropoutArgs) {
    super({ name: args.name });
    this.rate = args.rate;
    this.seed = args.seed;
    this.supportsMasking = true;
  }

  /** Called by the trainer before each epoch (1-based). */
  startEpoch(epoch: number): void {
    this.epoch = epoch;
    this.call_ = 0;
  }

  override computeOutputShape(inputShape: tf.Shape | tf.Shape[]): tf.Shape | tf.Shape[] {
    return inputShape;
  }

  override call(inputs: tf.Tensor | tf.Tensor[], kwargs: { training?: boolean }): tf.Tensor {
    const x = Array.isArray(inputs) ? inputs[0] : inputs;
    if (!kwargs.training || this.rate === 0) return x;
    const seed = deriveSeed(this.seed, SeedTag.dropout, this.epoch, this.call_++);
    // The mask from Philox (dropout-mask.ts): on gpuflow-cuda drawn and applied in one device op
    // (its gradient the same op on dy), here a host mask and a multiply.
    if (tf.getBackend() === GPUFLOW_CUDA && x.dtype === 'float32') return tf.engine().runKernel(DROPOUT, { x }, { seed, rate: this.rate }) as tf.Tensor;
    return tf.mul(x, tf.tensor(dropoutMask(x.size, seed, this.rate), x.shape, 'float32'));
  }

  override getConfig(): tf.serialization.ConfigDict {
    return { ...super.getConfig(), rate: this.rate, seed: this.seed };
  }
}

tf.serialization.registerClass(SeededDropout);

/** Every SeededDropout in the model learns the epoch it is in. */
export function startEpoch(model: tf.LayersModel, epoch: number): void {
  for (const l of model.layers) if (l instanceof SeededDropout) l.startEpoch(epoch);
}
