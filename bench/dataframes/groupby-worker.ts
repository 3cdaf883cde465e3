/**
 * A bench worker thread standing in for a CPU worker process: it generates its share of the
 * timeseries partitions and keeps them, then runs the groupby chunk step on each and sends the
 * partials back as Arrow IPC bytes, as a worker would.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Table } from 'apache-arrow';
import { timeseriesPartition, type TimeseriesColumn } from '../../worker/kernels/df/timeseries';
import { groupbyChunk, type GroupbySpec } from '../../worker/kernels/df/groupby';
import { toIPC } from '../../worker/kernels/df/ipc';

interface Job { seed: number; rows: number; partitions: number[]; columns?: TimeseriesColumn[] }
const job = workerData as Job;
const spec: GroupbySpec = { by: ['name'], aggs: [{ column: 'x', agg: 'mean' }] };
const held: Table[] = [];
const port = parentPort;
if (!port) throw new Error('groupby-worker runs as a worker thread');

port.on('message', (msg: 'generate' | 'groupby' | 'exit') => {
  if (msg === 'generate') {
    for (const p of job.partitions) held.push(timeseriesPartition(job.seed, p, job.rows, { columns: job.columns }));
    port.postMessage({ done: 'generate' });
  } else if (msg === 'groupby') {
    const partials = held.map((t) => toIPC(groupbyChunk(t, spec)));
    port.postMessage({ done: 'groupby', partials });
  } else process.exit(0);
});
port.postMessage({ ready: true });
