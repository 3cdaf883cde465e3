/** Every node kind the engine knows, by op name. Areas add their ops here. */
import type { NodeKindSpec } from '../../../common/catalog';
import { CORE_ARRAY_OPS } from './arrays-core';
import { CREATE_ARRAY_OPS } from './arrays-create';
import { ELEMENTWISE_ARRAY_OPS } from './arrays-elementwise';
import { FILE_ARRAY_OPS } from './arrays-files';
import { LINALG_ARRAY_OPS } from './arrays-linalg';
import { RANDOMIZED_ARRAY_OPS } from './arrays-randomized';
import { SELECT_ARRAY_OPS } from './arrays-select';
import { MASK_ARRAY_OPS } from './arrays-mask';
import { SHAPE_ARRAY_OPS } from './arrays-shape';
import { TAKE_ARRAY_OPS } from './arrays-take';
import { DIAG_ARRAY_OPS } from './arrays-diag';
import { JOIN_ARRAY_OPS } from './arrays-join';
import { SCAN_ARRAY_OPS } from './arrays-scan';
import { STATS_ARRAY_OPS } from './arrays-stats';
import { TUNING_OPS } from './tuning/index';
import { DF_OPS } from './df/index';
import type { OpDef } from './types';

const ALL: OpDef[] = [...CORE_ARRAY_OPS, ...CREATE_ARRAY_OPS, ...ELEMENTWISE_ARRAY_OPS, ...SELECT_ARRAY_OPS, ...MASK_ARRAY_OPS, ...SHAPE_ARRAY_OPS, ...TAKE_ARRAY_OPS, ...DIAG_ARRAY_OPS, ...JOIN_ARRAY_OPS, ...SCAN_ARRAY_OPS, ...STATS_ARRAY_OPS, ...LINALG_ARRAY_OPS, ...FILE_ARRAY_OPS, ...RANDOMIZED_ARRAY_OPS, ...TUNING_OPS, ...DF_OPS];

export const OPS: ReadonlyMap<string, OpDef> = new Map(ALL.map((o) => [o.spec.op, o]));
// Two areas naming the same op would silently shadow one another (the array and dataframe
// 'quantile' once did): refuse at load.
if (OPS.size !== ALL.length) {
  const seen = new Set<string>();
  const twice = ALL.map((o) => o.spec.op).filter((op) => seen.has(op) || !seen.add(op));
  throw new Error(`ops defined twice in the catalog: ${twice.join(', ')}`);
}

export function catalog(): NodeKindSpec[] {
  return ALL.map((o) => o.spec);
}
