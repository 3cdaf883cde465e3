/**
 * Bounds on what one workflow may ask of serve at validation and compile (issue 19), decided
 * before any data is read: a graph of more tasks than MAX_TASKS is refused (array chunk counts
 * have their own bound, MAX_BLOCKS in chunks.ts), and each file source refuses more than
 * MAX_SOURCE_PARTITIONS partitions from file sizes and Parquet footers alone — blocksize 1 on a
 * 30 MB CSV is 30 million tasks, which used to exhaust the heap while compiling.
 */
export const MAX_TASKS = 2_000_000;
export const MAX_SOURCE_PARTITIONS = 200_000;
