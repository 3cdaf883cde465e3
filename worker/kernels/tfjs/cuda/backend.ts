/**
 * `gpuflow-cuda`: a TensorFlow.js backend whose tensors live in device buffers of the worker's
 * GPU (the addon's resident blocks, 4-byte elements: float32, or int32 for int32 and bool) and
 * whose kernels (kernels.ts) queue work on the JS thread's CUDA stream. Nothing is copied back
 * until something reads a tensor (dataSync / data: the epoch's loss sum and its validation
 * outputs, once an epoch: train-step.ts). Reshape and Identity share a buffer, counted by refCount as tfjs's own backends do.
 */
import * as tf from '@tensorflow/tfjs';
import { DType, TfOp } from '../../../../native/tf-ops';
import type { TfDevice } from './device';

export const GPUFLOW_CUDA = 'gpuflow-cuda';

interface Data {
  /** The device buffer's id. */
  id: number;
  dtype: tf.DataType;
  size: number;
  refCount: number;
  /** A buffer of the constant cache (constants below): tensors share it; it is freed with the backend. */
  shared?: true;
}

/**
 * Tensors of one repeated value up to this size (tfjs's gradients make `ones` of the batch's
 * shape and scalars such as the mean's divisor and the clip bounds anew every batch) share one
 * device buffer per (dtype, size, value) instead of an upload each: tfjs tensors are immutable and
 * every kernel here writes a fresh output, so a shared buffer is never written after it is made.
 */
const CONSTANT_MAX_ELEMS = 16_384;
const CONSTANT_MAX_ENTRIES = 64;

/** The one value every element of `values` holds, else undefined (early out on the first other). */
function uniformValue(values: tf.BackendValues): number | undefined {
  if (values.length === 0 || values.length > CONSTANT_MAX_ELEMS || !(values instanceof Float32Array || values instanceof Int32Array || values instanceof Uint8Array)) return undefined;
  const v = values[0];
  for (let i = 1; i < values.length; i++) if (!Object.is(values[i], v)) return undefined;
  return v;
}

/** The device element type of a tfjs dtype; string and complex64 have none. */
export function deviceType(dtype: tf.DataType): 0 | 1 {
  if (dtype === 'float32') return 0;
  if (dtype === 'int32' || dtype === 'bool') return 1;
  throw new TypeError(`gpuflow-cuda: no device storage for dtype ${dtype}`);
}

const sizeOf = (shape: number[]) => shape.reduce((a, b) => a * b, 1);

export class GpuflowCudaBackend extends tf.KernelBackend {
  // tfjs's DataStorage: a get() of a tensor another backend holds moves it here first (the engine
  // reads it there and calls our move()), as for every tfjs backend.
  private readonly data = new tf.DataStorage<Data>(this, tf.engine());
  private liveBytes = 0;
  private readonly args: Float64Array[] = [];
  /** The constant cache: `dtype:size:value` -> device buffer id. */
  private readonly constants = new Map<string, number>();

  constructor(readonly device: TfDevice) {
    super();
  }

  private entry(dataId: tf.DataId): Data {
    const d = this.data.get(dataId) as Data | undefined;
    if (!d) throw new Error('gpuflow-cuda: a disposed tensor was passed to a kernel');
    return d;
  }

  /** The device buffer of a tensor. */
  idOf(t: tf.TensorInfo): number {
    return this.entry(t.dataId).id;
  }

  /** A new, uninitialised output tensor. */
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo {
    const dataId = {};
    const size = sizeOf(shape);
    const id = this.device.tfAlloc(size, deviceType(dtype));
    this.data.set(dataId, { id, dtype, size, refCount: 1 });
    this.liveBytes += size * 4;
    return { dataId, shape, dtype };
  }

  /** The same buffer under another shape (Reshape, Identity, and outputs read in another shape). */
  alias(t: tf.TensorInfo, shape: number[]): tf.TensorInfo {
    this.entry(t.dataId).refCount++;
    return { dataId: t.dataId, shape, dtype: t.dtype };
  }

  /** Queues one op (native/tf-ops.ts's record). */
  run(op: number, args: number[]): void {
    let buf = this.args[args.length];
    if (!buf) buf = this.args[args.length] = new Float64Array(args.length);
    buf.set(args);
    this.device.tfRun(op, buf);
  }

  override write(values: tf.BackendValues | null, shape: number[], dtype: tf.DataType): tf.DataId {
    const shared = values === null ? undefined : this.constant(values, shape, dtype);
    if (shared !== undefined) {
      const dataId = {};
      this.data.set(dataId, { id: shared, dtype, size: sizeOf(shape), refCount: 1, shared: true });
      return dataId;
    }
    const t = this.makeOutput(shape, dtype);
    if (values !== null) this.upload(t, values);
    return t.dataId;
  }

  /** The constant cache's buffer for `values` when they repeat one value (made on first use), else undefined. */
  private constant(values: tf.BackendValues, shape: number[], dtype: tf.DataType): number | undefined {
    const v = uniformValue(values);
    if (v === undefined) return undefined;
    // Float32Array / Int32Array keep their values exactly; Object.is tells -0 from 0 and finds NaN.
    const key = `${dtype}:${sizeOf(shape)}:${Object.is(v, -0) ? '-0' : String(v)}`;
    let id = this.constants.get(key);
    if (id === undefined) {
      if (this.constants.size >= CONSTANT_MAX_ENTRIES) return undefined;
      id = this.device.tfAlloc(sizeOf(shape), deviceType(dtype));
      this.run(TfOp.Fill, [id, sizeOf(shape), v, dtype === 'float32' ? DType.float32 : DType.int32]);
      this.constants.set(key, id);
      this.liveBytes += sizeOf(shape) * 4;
    }
    return id;
  }

  private upload(t: tf.TensorInfo, values: tf.BackendValues): void {
    const size = sizeOf(t.shape);
    if (values.length !== size) throw new RangeError(`gpuflow-cuda: ${values.length} values for a tensor of shape [${t.shape.join(', ')}]`);
    if (t.dtype === 'float32') {
      this.device.tfWrite(this.idOf(t), values instanceof Float32Array ? values : Float32Array.from(values as ArrayLike<number>));
    } else {
      this.device.tfWrite(this.idOf(t), values instanceof Int32Array ? values : Int32Array.from(values as ArrayLike<number>));
    }
  }

  override move(dataId: tf.DataId, values: tf.BackendValues, shape: number[], dtype: tf.DataType, refCount: number): void {
    const size = sizeOf(shape);
    const id = this.device.tfAlloc(size, deviceType(dtype));
    this.data.set(dataId, { id, dtype, size, refCount });
    this.liveBytes += size * 4;
    this.upload({ dataId, shape, dtype }, values);
  }

  override readSync(dataId: tf.DataId): tf.BackendValues {
    const d = this.entry(dataId);
    if (d.dtype === 'float32') {
      const out = new Float32Array(d.size);
      this.device.tfRead(d.id, out);
      return out;
    }
    const out = new Int32Array(d.size);
    this.device.tfRead(d.id, out);
    return d.dtype === 'bool' ? Uint8Array.from(out) : out;
  }

  override read(dataId: tf.DataId): Promise<tf.BackendValues> {
    return Promise.resolve(this.readSync(dataId));
  }

  override refCount(dataId: tf.DataId): number {
    return this.data.has(dataId) ? this.entry(dataId).refCount : 0;
  }

  override incRef(dataId: tf.DataId): void {
    this.entry(dataId).refCount++;
  }

  override disposeData(dataId: tf.DataId, force = false): boolean {
    if (!this.data.has(dataId)) return true;
    const d = this.entry(dataId);
    if (!force && --d.refCount > 0) return false;
    this.data.delete(dataId);
    if (d.shared) return true;
    this.device.cudaResidentFree(d.id);
    this.liveBytes -= d.size * 4;
    return true;
  }

  override numDataIds(): number {
    return this.data.numDataIds();
  }

  override memory(): { unreliable: boolean; numBytesInGPU: number } {
    return { unreliable: false, numBytesInGPU: this.liveBytes };
  }

  override timerAvailable(): boolean {
    return true;
  }

  override async time(f: () => void): Promise<tf.BackendTimingInfo> {
    const t0 = performance.now();
    f();
    this.device.tfSync();
    return { kernelMs: performance.now() - t0 };
  }

  override floatPrecision(): 32 {
    return 32;
  }

  override epsilon(): number {
    return 1e-7;
  }

  override dispose(): void {
    for (const id of this.constants.values()) this.device.cudaResidentFree(id);
    this.constants.clear();
  }

  /** Waits for every op queued (bench timing). */
  sync(): void {
    this.device.tfSync();
  }

  /** A tensor filled with one value. */
  fill(shape: number[], value: number, dtype: tf.DataType): tf.TensorInfo {
    const out = this.makeOutput(shape, dtype);
    this.run(TfOp.Fill, [this.idOf(out), sizeOf(shape), value, dtype === 'float32' ? DType.float32 : DType.int32]);
    return out;
  }
}
