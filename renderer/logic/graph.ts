/**
 * The editor's graph as plain data: a WorkflowDoc without the format tag. Its own module because
 * graph-model.ts (the operations) and groups.ts (frames) both take it and graph-model uses groups.
 */
import type { WorkflowEdge, WorkflowGroup, WorkflowNode } from '../../common/workflow';

export interface Graph {
  name: string;
  description?: string;
  params: Record<string, number | string | boolean>;
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  /** Editor frames (renderer/logic/groups.ts); absent or empty when there are none. */
  groups?: WorkflowGroup[];
}
