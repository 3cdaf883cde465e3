/**
 * What a node kind is to the engine: its catalog entry (ports, params) and `build`, which turns
 * resolved params and input values into lazy output values. Lazy arrays are descriptions of
 * their chunks, not data: elementwise ops and slices compose them (that is the fusion), and only
 * a materialisation or a reduction emits tasks.
 */
import type { DType, Expr } from '../../../common/arrays';
import type { NodeKindSpec } from '../../../common/catalog';
import type { ParamValue } from '../../../common/workflow';
import type { Resource, TaskDef } from '../../../common/tasks';
import type { Steps } from '../slices';

export interface LazyArray {
  kind: 'array';
  shape: number[];
  /** Chunk sizes per axis, e.g. [[1000, 1000, 500], [1000, 1000, 500]]. */
  chunks: number[][];
  dtype: DType;
  /** The fused elementwise program of block `idx` and the task keys it reads. */
  block(idx: number[]): { expr: Expr; deps: string[] };
  /** The fused chain's name for the task stream, e.g. "normal+add+slice". */
  opName: string;
  /** Node ids fused into this value (for highlighting). */
  nodes: string[];
}

export interface LazyScalar {
  kind: 'scalar';
  key: string;
  dtype: DType;
}

/** A value computed by tasks and passed on whole (dataframes, models, tuning results). */
export interface LazyOpaque {
  kind: 'opaque';
  portType: 'dataframe' | 'model' | 'dataset';
  /** Task keys of the partitions (or one key for a single value). */
  keys: string[];
  /**
   * What a run reports when this value is an output: its first key's value (default), or the
   * values of all keys as a list (e.g. one record per file written).
   */
  report?: 'first' | 'all';
  meta: Record<string, unknown>;
}

export type LazyValue = LazyArray | LazyScalar | LazyOpaque;

export type ResolvedParams = Record<string, ParamValue>;

export interface BuildContext {
  nodeId: string;
  params: ResolvedParams;
  inputs: Record<string, LazyValue | undefined>;
  /** This node's output ports that an edge reads (a search keeps no weights nothing reads). */
  usedPorts: ReadonlySet<string>;
  /** Adds a task to the graph. Keys must be unique; use `key()`. */
  emit(task: Omit<TaskDef, 'node'> & { node?: string }): void;
  /** A unique task key within this node: `${nodeId}/${name}(${idx})`. */
  key(name: string, idx?: number[]): string;
  /** Raises an error about one of this node's params. */
  fail(field: string, detail: string): never;
  /** Default resource for array tasks. */
  arrayResource: Resource;
  /** The run's GPU workers with the cuda backend (absent: none), for ops that lower differently when their data fits one device. */
  device?: DeviceTarget;
  /** GPU workers (real or virtual) that reductions coarsen their chunk tasks for, and their task cap (compile/coarsen.ts); gpus 0: none. */
  gpuShare: GpuShare;
}

/** What the compiler knows of the run's cuda GPU workers. */
export interface DeviceTarget {
  /** How many there are. */
  gpus: number;
  /** The smallest one's memory limit, in bytes. */
  bytes: number;
}

export interface OpDef {
  spec: NodeKindSpec;
  /**
   * Builds the node. Ops that may emit a large grid of tasks return a generator that yields
   * between tasks (main/engine/slices.ts), so a run started by serve or the app compiles in slices.
   */
  build(ctx: BuildContext): Record<string, LazyValue> | Steps<Record<string, LazyValue>>;
  /**
   * The fewest tasks `build` will emit, from its inputs' shapes and chunks alone (nothing built),
   * so a graph over MAX_TASKS is refused in milliseconds instead of after building every block
   * (issue 29 item 5: 1400² one-element chunks + reduce was refused after 98 s and +950 MB).
   */
  minTasks?(ctx: BuildContext): number;
  /**
   * Its tasks call cuBLAS / cuSOLVER on GPU workers (matmul, qr, svd): the engine asks the GPU
   * workers to make those handles while it compiles (compile/libraries.ts), and not otherwise.
   */
  deviceLibraries?: true;
}

/** How a run's GPU workers take coarsened tasks (compile/coarsen.ts): how many, and the most elements a task may hold. */
export interface GpuShare {
  gpus: number;
  taskElements: number;
}
