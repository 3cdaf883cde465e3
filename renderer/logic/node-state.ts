/** A node's state at a glance, from its params, the run's progress and errors. */
import type { NodeKindSpec } from '../../common/catalog';
import type { WorkflowNode } from '../../common/workflow';
import { missingParams } from './param-form';

export type NodeState = 'unconfigured' | 'ready' | 'running' | 'done' | 'failed';

export function nodeState(
  node: WorkflowNode,
  spec: NodeKindSpec | undefined,
  connectedInputs: Set<string>,
  progress: [number, number] | undefined,
  errors: string[] | undefined,
  runStatus: string,
): NodeState {
  if (errors?.length) return 'failed';
  if (!spec) return 'unconfigured';
  if (missingParams(spec.params, node.params).length) return 'unconfigured';
  if (spec.inputs.some((p) => !p.optional && !connectedInputs.has(p.name))) return 'unconfigured';
  if (progress) {
    const [done, total] = progress;
    if (total > 0 && done >= total) return 'done';
    if (runStatus === 'running' || runStatus === 'starting') return 'running';
  }
  // Fused nodes report no progress of their own; a finished run means every node produced.
  if (runStatus === 'finished') return 'done';
  return 'ready';
}
