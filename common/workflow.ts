/**
 * The workflow document: what a person drew. Stored as JSON with `"format": "gpuflow.workflow/1"`.
 *
 * A node has an `op` (a kind from the catalog), `params`, and typed ports; an edge joins one
 * node's output port to another node's input port. A param value may be a reference `"$name"` to
 * the document's `params` table, so one document serves many sizes (`gpuflow run --param N=4000`).
 * Documents are parsed and validated (main/engine/validate.ts), never evaluated: no field names
 * code to run.
 */
export const WORKFLOW_FORMAT = 'gpuflow.workflow/1';

export type PortType = 'array' | 'dataframe' | 'model' | 'scalar' | 'dataset';

export type ParamValue = number | string | boolean | null | ParamValue[] | { [k: string]: ParamValue };

export interface WorkflowNode {
  id: string;
  op: string;
  params: Record<string, ParamValue>;
  /** Editor position; ignored by the engine. */
  position?: { x: number; y: number };
  label?: string;
}

export interface WorkflowEdge {
  source: string;
  sourcePort: string;
  target: string;
  targetPort: string;
}

export interface WorkflowDoc {
  format: typeof WORKFLOW_FORMAT;
  name?: string;
  description?: string;
  /** Workflow-level parameters referenced from node params as "$name". */
  params?: Record<string, number | string | boolean>;
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
}
