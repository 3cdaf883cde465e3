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

/**
 * An editor group: a titled frame around some nodes that moves them together. Like node
 * positions it is layout only (the engine ignores it); member positions stay absolute in the
 * file, so a reader that does not know groups still places every node where it was.
 */
export interface WorkflowGroup {
  id: string;
  label: string;
  /** Member node ids; a node belongs to at most one group. */
  nodes: string[];
  /** Top-left corner of the frame, in canvas coordinates. */
  position: { x: number; y: number };
  size: { width: number; height: number };
}

export interface WorkflowDoc {
  format: typeof WORKFLOW_FORMAT;
  name?: string;
  description?: string;
  /** Workflow-level parameters referenced from node params as "$name". */
  params?: Record<string, number | string | boolean>;
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  /** Editor groups (optional: files written before groups existed have none). */
  groups?: WorkflowGroup[];
}
