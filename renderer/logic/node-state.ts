/**
 * A node's state at a glance. Before any run: not configured / invalid / ready. During a run, for
 * the nodes it covers: waiting, running, done as each finishes (a node fused into another's tasks
 * follows the node that carries its work). After: done while the node and everything upstream is
 * unchanged since the run that computed it (signatures equal), stale once edited, failed on a
 * runtime error, cancelled when the run on show was cancelled before the node was computed (its
 * tasks were stopped, nothing failed). A node added after the run is ready (never run), not done.
 */
import type { NodeKindSpec } from '../../common/catalog';
import type { WorkflowNode } from '../../common/workflow';
import { missingParams } from './param-form';

export type NodeState = 'unconfigured' | 'invalid' | 'ready' | 'waiting' | 'running' | 'done' | 'stale' | 'failed' | 'cancelled';

export interface NodeStateInput {
  node: WorkflowNode;
  spec: NodeKindSpec | undefined;
  connectedInputs: Set<string>;
  /** [done, total] of the run on show for this node (or of the nodes carrying its work); undefined outside it. */
  progress: [number, number] | undefined;
  /** Runtime errors of this node in the run on show. */
  runtimeErrors: number;
  /** Validation problems (server or unparsed fields). */
  invalid: boolean;
  /** Whether the run on show covers this node and is in flight. */
  running: boolean;
  /** This node's signature now, and the one it had when a run last computed it (undefined: never). */
  signature: string;
  doneSignature: string | undefined;
  /** Some of its tasks are running now (task-state events): running before the first one finishes. */
  tasksRunning?: boolean;
  /** The run on show covered this node and was cancelled. */
  stopped?: boolean;
}

export function nodeState(i: NodeStateInput): NodeState {
  if (i.runtimeErrors > 0) return 'failed';
  if (!i.spec) return 'unconfigured';
  if (missingParams(i.spec.params, i.node.params).length) return 'unconfigured';
  if (i.spec.inputs.some((p) => !p.optional && !i.connectedInputs.has(p.name))) return 'unconfigured';
  if (i.invalid) return 'invalid';
  if (i.running) {
    if (i.progress && i.progress[1] > 0 && i.progress[0] >= i.progress[1]) return 'done';
    if ((i.progress && i.progress[0] > 0) || i.tasksRunning) return 'running';
    return 'waiting';
  }
  if (i.stopped && i.doneSignature !== i.signature) return 'cancelled';
  if (i.doneSignature === undefined) return 'ready';
  return i.doneSignature === i.signature ? 'done' : 'stale';
}

export const STATE_LABEL: Record<NodeState, string> = {
  unconfigured: 'not configured',
  invalid: 'invalid',
  ready: 'ready',
  waiting: 'waiting',
  running: 'running',
  done: 'done',
  stale: 'stale',
  failed: 'failed',
  cancelled: 'cancelled',
};
