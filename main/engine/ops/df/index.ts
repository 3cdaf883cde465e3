/** The dataframe node kinds (docs/dataframes.md), for the registry. */
import type { OpDef } from '../types';
import { DF_AGGREGATE_OPS } from './aggregate';
import { DF_COLUMN_OPS } from './columns';
import { DF_MERGE_OPS } from './merge';
import { DF_MISSING_OPS } from './missing';
import { DF_ROW_OPS } from './rows';
import { DF_SCAN_OPS } from './scan';
import { DF_SOURCE_OPS } from './sources';
import { DF_WINDOW_OPS } from './window';
import { DF_WRITE_OPS } from './write';

export const DF_OPS: OpDef[] = [...DF_SOURCE_OPS, ...DF_COLUMN_OPS, ...DF_MISSING_OPS, ...DF_ROW_OPS, ...DF_AGGREGATE_OPS, ...DF_MERGE_OPS, ...DF_WINDOW_OPS, ...DF_SCAN_OPS, ...DF_WRITE_OPS];
