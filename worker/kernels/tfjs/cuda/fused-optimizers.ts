/**
 * Adam, SGD (with or without momentum) and RMSprop for gpuflow-cuda: each variable's update is
 * one device kernel (kernels.ts OPTIMIZER_STEP, native/tf-ops.ts Optimizer) instead of the 5 to
 * 12 element-wise kernels tfjs's optimizers compose it of. models.ts builds these when the trial
 * trains on gpuflow-cuda.
 *
 * They are tfjs's optimizers in every outward respect, so a trial moves between backends: the
 * same formulas (float32), the same className and config (a saved model names tfjs's class and
 * loads as it), and the same state layout in getWeights / setWeights ('iter', then each slot's
 * variables in variable order, named `<variable>/<slot>`), so a model packed on the GPU resumes on
 * wasm and back. Adam's bias-correction powers are kept on the host (float32 as tfjs's scalar
 * variables compute them) and passed to the kernel, so a step reads nothing back.
 */
import * as tf from '@tensorflow/tfjs';
import { OptKind } from '../../../../native/tf-ops';
import { GPUFLOW_CUDA } from './backend';
import { OPTIMIZER_STEP } from './kernels';

/** tfjs's (name, tensor) pair of an optimizer's state (not re-exported by @tensorflow/tfjs). */
type NamedTensor = { name: string; tensor: tf.Tensor };

const f32 = Math.fround;

type Grads = tf.NamedTensorMap | NamedTensor[];

abstract class FusedOptimizer extends tf.Optimizer {
  /** Per variable (in gradient order, as tfjs's optimizers index them), its slot variables and their names. */
  private slots: { names: string[]; vars: tf.Variable[] }[] = [];

  protected constructor(
    private readonly kind: number,
    /** Slot names in tfjs's getWeights order (Adam: m, v). */
    private readonly slotNames: string[],
  ) {
    super();
  }

  /** The kernel's 8 params for this step (called once per step, before the variables). */
  protected abstract stepParams(): number[];
  /** After a step's variables (Adam advances its powers). */
  protected afterStep(): void {}

  override applyGradients(variableGradients: Grads): void {
    if (tf.getBackend() !== GPUFLOW_CUDA) throw new Error(`the fused ${this.getClassName()} optimizer runs on gpuflow-cuda only (backend now: ${tf.getBackend()})`);
    const named = Array.isArray(variableGradients) ? variableGradients.map((v) => ({ name: v.name, grad: v.tensor })) : Object.entries(variableGradients).map(([name, grad]) => ({ name, grad }));
    const params = this.stepParams();
    named.forEach(({ name, grad }, i) => {
      const value = tf.engine().registeredVariables[name];
      if (!value) throw new Error(`fused ${this.getClassName()}: no variable named ${name}`);
      const slots = (this.slots[i] ??= {
        names: this.slotNames.map((s) => `${name}/${s}`),
        vars: this.slotNames.map(() => tf.tidy(() => tf.zerosLike(value).variable(false))),
      }).vars;
      if (!grad) return;
      const inputs: tf.NamedTensorMap = { x: value, g: grad };
      slots.forEach((s, k) => (inputs[`s${k}`] = s));
      const outs = tf.engine().runKernel(OPTIMIZER_STEP, inputs, { kind: this.kind, params }) as tf.Tensor[];
      value.assign(outs[0]);
      slots.forEach((s, k) => s.assign(outs[k + 1]));
      tf.dispose(outs);
    });
    this.afterStep();
    this.incrementIterations();
  }

  override dispose(): void {
    tf.dispose(this.slots.flatMap((s) => s.vars));
    this.slots = [];
  }

  override async getWeights(): Promise<NamedTensor[]> {
    const state = this.slotNames.flatMap((_s, k) => this.slots.map((v) => ({ name: v.names[k], tensor: v.vars[k] })));
    return [await this.saveIterations(), ...state];
  }

  override async setWeights(weightValues: NamedTensor[]): Promise<void> {
    const rest = await this.extractIterations(weightValues);
    const per = this.slotNames.length;
    if (per === 0) {
      if (rest.length !== 0) throw new Error(`${this.getClassName()} optimizer: ${rest.length} state tensors given, it keeps none`);
    } else {
      if (rest.length % per !== 0) throw new Error(`${this.getClassName()} optimizer: ${rest.length} state tensors is no multiple of its ${per} slots`);
      const count = rest.length / per;
      this.dispose();
      this.slots = Array.from({ length: count }, (_, i) => {
        const ws = this.slotNames.map((_s, k) => rest[k * count + i]);
        return { names: ws.map((w) => w.name), vars: ws.map((w) => w.tensor.variable(false)) };
      });
    }
    this.afterSetWeights();
  }

  protected afterSetWeights(): void {}
}

/** tfjs's AdamOptimizer (className 'Adam'), fused. */
export class FusedAdam extends FusedOptimizer {
  static get className(): string {
    return 'Adam';
  }
  private acc1: number;
  private acc2: number;

  constructor(
    private readonly learningRate: number,
    private readonly beta1 = 0.9,
    private readonly beta2 = 0.999,
    private readonly epsilon: number = tf.backend().epsilon(),
  ) {
    super(OptKind.Adam, ['m', 'v']);
    this.acc1 = f32(beta1);
    this.acc2 = f32(beta2);
  }

  protected stepParams(): number[] {
    return [-this.learningRate, this.beta1, 1 - this.beta1, this.beta2, 1 - this.beta2, this.epsilon, f32(1 - this.acc1), f32(1 - this.acc2)];
  }

  protected override afterStep(): void {
    this.acc1 = f32(this.acc1 * f32(this.beta1));
    this.acc2 = f32(this.acc2 * f32(this.beta2));
  }

  protected override afterSetWeights(): void {
    this.acc1 = f32(Math.pow(f32(this.beta1), this.iterations + 1));
    this.acc2 = f32(Math.pow(f32(this.beta2), this.iterations + 1));
  }

  override getConfig(): tf.serialization.ConfigDict {
    return { learningRate: this.learningRate, beta1: this.beta1, beta2: this.beta2, epsilon: this.epsilon };
  }
}

/** tfjs's RMSPropOptimizer (className 'RMSProp'), uncentered, fused. */
export class FusedRmsprop extends FusedOptimizer {
  static get className(): string {
    return 'RMSProp';
  }

  constructor(
    private readonly learningRate: number,
    private readonly decay = 0.9,
    private readonly momentum = 0,
    private readonly epsilon: number = tf.backend().epsilon(),
  ) {
    super(OptKind.Rmsprop, ['rms', 'momentum']);
  }

  protected stepParams(): number[] {
    return [this.learningRate, this.decay, 1 - this.decay, this.momentum, this.epsilon, 0, 0, 0];
  }

  override getConfig(): tf.serialization.ConfigDict {
    return { learningRate: this.learningRate, decay: this.decay, momentum: this.momentum, epsilon: this.epsilon, centered: false };
  }
}

/** tfjs's SGDOptimizer ('SGD'), or with momentum its MomentumOptimizer ('Momentum'), fused. */
export class FusedSgd extends FusedOptimizer {
  static get className(): string {
    return 'SGD';
  }

  constructor(
    private readonly learningRate: number,
    private readonly momentum?: number,
    private readonly useNesterov = false,
  ) {
    super(momentum === undefined ? OptKind.Sgd : OptKind.Momentum, momentum === undefined ? [] : ['momentum']);
  }

  override getClassName(): string {
    return this.momentum === undefined ? 'SGD' : 'Momentum';
  }

  protected stepParams(): number[] {
    return [-this.learningRate, this.momentum ?? 0, this.useNesterov ? 1 : 0, 0, 0, 0, 0, 0];
  }

  override getConfig(): tf.serialization.ConfigDict {
    return this.momentum === undefined ? { learningRate: this.learningRate } : { learningRate: this.learningRate, momentum: this.momentum, useNesterov: this.useNesterov };
  }
}
