/**
 * The dataframe kernels' public surface, for the compiler and the worker's task handlers. Every
 * function takes Arrow tables (partitions; fromIPC turns received bytes into one) and plain
 * parameters, and returns tables; groupby and value_counts partials are small tables too.
 */
export { toIPC, fromIPC, type TableLike } from './ipc';
export { readCsv, csvPartitions, inferCsvTypes, CsvError, type CsvOptions, type CsvPart, type CsvResult, type CsvType } from './csv';
export { readParquet, writeParquet, parquetBytes, parquetPartitions, type ParquetPart } from './parquet';
export { timeseries, timeseriesPartition, TIMESERIES_NAMES, type TimeseriesSpec } from './timeseries';
export { tableFromArray } from './from-array';
export { select, drop, rename, filter, assign, head, tail } from './ops';
export { sortTable, sortIndices } from './sort';
export { concatTables, takeTable, filterTable } from './gather';
export { dropDuplicates, valueCounts, valueCountsChunk, valueCountsAggregate, hashPartition } from './rows';
export { describe, DESCRIBE_STATS, quantile, nunique } from './describe';
export { isna, fillna, dropna } from './missing';
export { groupby, groupbyChunk, groupbyCombine, groupbyAggregate, AGG_NAMES, type AggName, type AggSpec, type GroupbySpec } from './groupby';
export { hashJoin, broadcastJoin, type JoinHow, type JoinSpec } from './join';
export { exprSchemaOf } from './columns';
