/** The model-tuning nodes (docs/tuning.md): data, split, model, search, predict. */
import type { OpDef } from '../types';
import { TUNING_DATA_OPS } from './data';
import { TUNING_MODEL_OPS } from './model';
import { TUNING_PREDICT_OPS } from './predict';
import { TUNING_SEARCH_OPS } from './search';

export const TUNING_OPS: OpDef[] = [...TUNING_DATA_OPS, ...TUNING_MODEL_OPS, ...TUNING_SEARCH_OPS, ...TUNING_PREDICT_OPS];
