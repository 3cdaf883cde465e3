/**
 * The task graph: what runs. The compiler (main/engine/compile) turns each workflow node into
 * chunk-level tasks; the scheduler places them; workers execute their `spec`.
 */
import type { ChunkProgram, DType } from './arrays';

/** Where a task may run: a GPU worker (real or virtual), a CPU worker, or either. */
export type Resource = 'gpu' | 'cpu' | 'any';

export type TaskSpec =
  /** One fused chunk program (generate / elementwise / slice / reduction chunk step). */
  | { kind: 'program'; program: ChunkProgram }
  /**
   * Combine the partials of the deps, in order; `finalize` turns the result into values, of
   * `dtype` where that is not float64 (NumPy's: int64 sums, float32, int32 min; common/dtype-rules.ts).
   */
  | { kind: 'combine'; finalize: boolean; ddof?: number; dtype?: DType }
  /** Extension point for array ops beyond fused programs (matmul blocks, QR steps, rechunk). */
  | { kind: 'array-op'; op: string; params: Record<string, unknown> }
  /** Dataframe partition work (worker/kernels/df). */
  | { kind: 'df'; op: string; params: Record<string, unknown> }
  /** One model-tuning trial step (worker/kernels/tfjs). */
  | { kind: 'trial'; op: string; params: Record<string, unknown> };

/** Where a block belongs (TaskDef.place). */
/**
 * `grid`: a 2-D block (matmul's SUMMA layout); `index`: a 1-D block, round robin (TSQR's row
 * blocks); `share`: the k-th of n tasks split into contiguous shares, one a worker (a reduction's
 * chunk partials and their combines, so each combine finds its partials where it runs).
 */
export type TaskPlace = { grid: [number, number] } | { index: number } | { share: [number, number] };

export interface TaskDef {
  key: string;
  deps: string[];
  spec: TaskSpec;
  resource: Resource;
  /** Workflow node this task belongs to (for progress and highlighting). */
  node: string;
  /** Short op name shown in the task stream (e.g. "normal+add+slice+sum"). */
  op: string;
  /** Estimated bytes of the task's output. */
  outBytes: number;
  /** Estimated bytes the task touches while running (for memory limits). */
  workBytes: number;
  /**
   * Owner-computes placement (main/engine/scheduler/placement.ts): the block's coordinates on a
   * 2-D block grid (the scheduler lays its GPU workers out as a process grid and sends the task
   * to the worker owning them, block-cyclically, as SUMMA distributes matrices), or its index in
   * a 1-D row of blocks (worker index mod P: TSQR's row blocks).
   */
  place?: TaskPlace;
  /**
   * Set by an op whose tasks (no place) are long next to a worker's start and come many to a node
   * (a search's trials: seconds each, a GPU's work): while GPU workers are still starting, the
   * node's `deal` tasks are dealt round robin over the grid and those dealt to a starting worker
   * wait for it (scheduler/placement.ts heldFor) rather than queue on the first ready worker.
   * Short tasks (chunk programs, dataframe partitions, a prediction per partition) leave it unset:
   * waiting for a worker's start would cost them more than running now.
   */
  deal?: true;
}

/** How a workflow node's result is assembled from task outputs. */
/** `digestDigits`: set on values computed from float32 data (common/results.ts ResultValue). */
export type NodeOutput =
  | { kind: 'scalar'; key: string; dtype: string; digestDigits?: number }
  | { kind: 'array'; shape: number[]; chunks: number[][]; dtype: string; keys: string[]; digestDigits?: number }
  | { kind: 'value'; key: string }
  /** A large array reported as a summary computed on the workers; `key` yields a bundle {stats, hist, corner}. */
  | { kind: 'array-summary'; key: string; shape: number[]; dtype: string; digestDigits?: number }
  /** A dataframe: its partitions' keys in order and its columns (name, expression type). */
  | { kind: 'table'; keys: string[]; columns: { name: string; type: string }[] }
  /** Several JSON values reported as one list (e.g. one per file a writer wrote). */
  | { kind: 'values'; keys: string[] };

export interface TaskGraph {
  tasks: Map<string, TaskDef>;
  /** Output of each node that the run reports, by node id. */
  outputs: Record<string, NodeOutput>;
}
