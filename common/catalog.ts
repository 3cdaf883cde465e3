/**
 * The node catalog as the renderer and the validator see it: each node kind's ports and params.
 * Pure data, shared by main, worker and renderer (no runtime imports).
 */
import type { PortType } from './workflow';

export type NodeCategory = 'arrays' | 'dataframes' | 'model tuning' | 'files';

export interface PortSpec {
  name: string;
  type: PortType;
  /** Optional inputs may stay unconnected. */
  optional?: boolean;
  doc?: string;
}

export type ParamSpec =
  | { name: string; kind: 'number'; doc?: string; default?: number; integer?: boolean; min?: number; max?: number; exclusiveMin?: number; required?: boolean }
  /**
   * `path`: the string names a file, folder or glob on this machine. The validator puts every such
   * param through the one path policy (main/engine/paths.ts checkPath) whatever the op.
   */
  | { name: string; kind: 'string'; doc?: string; default?: string; required?: boolean; pattern?: string; path?: 'file' | 'folder' | 'glob' }
  | { name: string; kind: 'enum'; doc?: string; options: string[]; default?: string; required?: boolean }
  | { name: string; kind: 'boolean'; doc?: string; default?: boolean; required?: boolean }
  /** A list of numbers, e.g. a shape or chunk sizes. `length` fixes the length when set. */
  | { name: string; kind: 'numbers'; doc?: string; default?: number[]; integer?: boolean; min?: number; exclusiveMin?: number; minLength?: number; maxLength?: number; required?: boolean }
  /** A list of strings, e.g. column names. */
  | { name: string; kind: 'strings'; doc?: string; default?: string[]; required?: boolean; minLength?: number }
  /** Free-form JSON (search spaces, slices) validated by the node kind itself. */
  | { name: string; kind: 'json'; doc?: string; default?: unknown; required?: boolean };

export interface NodeKindSpec {
  op: string;
  label: string;
  category: NodeCategory;
  doc: string;
  inputs: PortSpec[];
  outputs: PortSpec[];
  params: ParamSpec[];
}
