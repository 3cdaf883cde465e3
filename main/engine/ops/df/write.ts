/**
 * write_parquet: one file per partition, part.<i>.parquet in an existing folder (as dask's
 * to_parquet names them), each written by the task that holds the partition, so nothing is
 * gathered. The folder must exist: compiling has no side effects, so it is not created here.
 * Reports [{path, rows}, ...] in partition order.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { checkPath } from '../../paths';
import type { OpDef } from '../types';
import { emitDf, frameInput } from './meta';

const writeParquetOp: OpDef = {
  spec: {
    op: 'write_parquet',
    label: 'Write Parquet',
    category: 'files',
    doc: 'Writes each partition to <folder>/part.<i>.parquet (the folder must exist and lie in an allowed folder). Reports the files and their rows.',
    inputs: [{ name: 'df', type: 'dataframe' }],
    outputs: [],
    params: [
      { name: 'path', kind: 'string', path: 'folder', required: true, doc: 'an existing folder' },
      { name: 'row_group_size', kind: 'number', integer: true, min: 1, default: 1048576 },
    ],
  },
  build(ctx) {
    const f = frameInput(ctx, 'df');
    const dir = checkPath(ctx.params.path, 'params.path', ctx);
    let isDir = false;
    try {
      isDir = statSync(dir).isDirectory();
    } catch {
      // missing: reported below
    }
    if (!isDir) ctx.fail('params.path', `${dir} is not an existing folder; create it first`);
    const rowGroupSize = typeof ctx.params.row_group_size === 'number' ? ctx.params.row_group_size : 1 << 20;
    const keys = f.keys.map((k, i) => {
      const key = ctx.key('write', [i]);
      emitDf(ctx, key, [k], 'write-parquet', { path: join(dir, `part.${i}.parquet`), rowGroupSize }, 256, f.partitionBytes * 3);
      return key;
    });
    // Not a dataframe port: compile reports every write's {path, rows}.
    return { out: { kind: 'opaque', portType: 'dataset', keys, report: 'all', meta: { path: dir } } };
  },
};

export const DF_WRITE_OPS: OpDef[] = [writeParquetOp];
