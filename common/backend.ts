/**
 * The interface every compute backend implements (js, native-cpu, cuda). A worker holds an
 * ordered list of backends and runs each task on the first one that `supports` it, so a backend
 * may implement only the ops it makes faster; `js` supports everything and is the oracle.
 * The backend that ran a task is recorded in the task's event. It lives in common/ because both
 * worker/ (which holds the backends) and native/ (whose bindings implement two of them) need it.
 */
import type { ChunkProgram, ChunkValue, NDArray } from './arrays';

export type BackendName = 'js' | 'native-cpu' | 'cuda';

export interface ArrayBackend {
  readonly name: BackendName;
  /** Whether this backend can run the program (dtypes, leaves and ops it implements). */
  supportsProgram(program: ChunkProgram): boolean;
  /** Runs one chunk program over its dependency values (in the task's dep order). */
  runProgram(program: ChunkProgram, inputs: ChunkValue[]): Promise<ChunkValue>;
  /** C = A @ B (+ C0 when given), 2-D, same dtype. Optional: js does it when absent. */
  matmul?(a: NDArray, b: NDArray, c0?: NDArray): Promise<NDArray>;
  /** Reduced QR of a tall-skinny block: A (m x n, m >= n) = Q (m x n) R (n x n). Optional. */
  qr?(a: NDArray): Promise<{ q: NDArray; r: NDArray }>;
  /** Thin SVD of a small matrix: A = U diag(S) V^T. Optional. */
  svd?(a: NDArray): Promise<{ u: NDArray; s: NDArray; vt: NDArray }>;
}
