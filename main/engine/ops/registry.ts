/** Every node kind the engine knows, by op name. Areas add their ops here. */
import type { NodeKindSpec } from '../../../common/catalog';
import { CORE_ARRAY_OPS } from './arrays-core';
import type { OpDef } from './types';

const ALL: OpDef[] = [...CORE_ARRAY_OPS];

export const OPS: ReadonlyMap<string, OpDef> = new Map(ALL.map((o) => [o.spec.op, o]));

export function catalog(): NodeKindSpec[] {
  return ALL.map((o) => o.spec);
}
