// What a process's first gpuflow-cuda trial pays on the host that its later trials do not, and
// how much of it the warm-up (worker/kernels/tfjs/trial-warmup.ts) takes out of the first trial:
// the MNIST-shaped example's model (784 -> 3 x 512 relu -> 10, dropout 0.1, Adam, batch 128) over
// a null device (null-device.ts: calls do nothing, reads give zeros), so each time is tfjs's
// engine, tfjs-layers, V8 and the backend's records only: the JS-side share of the first trial's
// extra, no launch, copy or GPU first use. Each mode in a fresh process (first uses are per
// process), alternated, REPS times: 'off' trains TRIALS trials; 'on' runs the warm-up first.
// Steps come from the trials' start-up trace marks (train.ts: worker-trial-<n>-<step>).
// Run: node --import tsx bench/tuning/first-trial.ts [rows=12800] [reps=3] [trials=3]
// Prints one JSON line per process.
import { execFileSync, execSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const rows = Number(process.argv[2] ?? 12800);
const reps = Number(process.argv[3] ?? 3);
const trials = Number(process.argv[4] ?? 3);
const mode = process.argv[5];

/** Milliseconds between the trace marks of each trial's steps, and each trial's whole. */
function steps(marks: Map<string, number>, n: number): Record<string, number> {
  const at = (s: string) => marks.get(`worker-trial-${n}-${s}`) ?? NaN;
  const r = (v: number) => Math.round(v * 10) / 10;
  return {
    setupMs: r(at('rows-ready') - at('start')),
    firstBatchMs: r(at('epoch-1-batch-1') - at('rows-ready')),
    restOfEpochMs: r(at('epoch-1-trained') - at('epoch-1-batch-1')),
    validationMs: r(at('epoch-1-validated') - at('epoch-1-trained')),
    totalMs: r(at('done') - at('start')),
  };
}

async function child(on: boolean): Promise<void> {
  // Trace marks are read from this process's own stderr writes (common/start-trace.ts).
  const marks = new Map<string, number>();
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    const f = String(chunk).trim().split(' ');
    if (f[0] === 'gpuflow-trace') {
      marks.set(f[2], Number(f[3]));
      return true;
    }
    return write(chunk, ...rest);
  }) as typeof process.stderr.write;
  const tf = await import('@tensorflow/tfjs');
  const { GPUFLOW_CUDA } = await import('../../worker/kernels/tfjs/cuda/backend');
  const { registerGpuflowCuda } = await import('../../worker/kernels/tfjs/cuda/register');
  const { modelSpecFromParams } = await import('../../common/tuning/trial');
  const { makeClassification } = await import('../../worker/kernels/tfjs/datasets');
  const { trainValidationSplit } = await import('../../worker/kernels/tfjs/split');
  const { trainTrial } = await import('../../worker/kernels/tfjs/train');
  const { warmTrialKernels, warmupBatches } = await import('../../worker/kernels/tfjs/trial-warmup');
  const { nullDevice } = await import('./null-device');
  const { device } = nullDevice();
  registerGpuflowCuda(() => device);
  await tf.setBackend('cpu');
  const data = trainValidationSplit(makeClassification({ nSamples: rows, nFeatures: 784, nInformative: 64, nClasses: 10, flipY: 0.02, seed: 1 }), { validationFraction: 0.2, seed: 2, stratify: true });
  const model = modelSpecFromParams({ kind: 'mlp', batchSize: 128, dropout: 0.1 }, { layers: 3, units: 512, optimizer: 'adam', learningRate: 0.001 });
  let warmupMs: number | null = null;
  if (on) {
    const t0 = performance.now();
    await warmTrialKernels(model, { task: 'classification', nFeatures: 784, nClasses: 10 }, warmupBatches());
    warmupMs = Math.round((performance.now() - t0) * 10) / 10;
  }
  await tf.setBackend(GPUFLOW_CUDA);
  for (let n = 1; n <= trials; n++) await trainTrial({ trialId: `t${n}`, model, seed: n, epochs: 1, metric: 'accuracy' }, data);
  const commit = execSync('git rev-parse --short HEAD').toString().trim();
  const load = execSync('cat /proc/loadavg').toString().split(' ')[0];
  // Trials past the trace's first two are not marked (train.ts TRACED_TRIALS).
  const perTrial = [1, 2].filter((n) => n <= trials).map((n) => ({ trial: n, ...steps(marks, n) }));
  process.stdout.write(JSON.stringify({ bench: 'tuning-first-trial', commit, device: 'null (calls do nothing)', warmup: on, warmupBatches: on ? warmupBatches() : 0, warmupMs, rows, trainRows: data.train.nRows, batchSize: 128, load, trials: perTrial }) + '\n');
}

if (mode === 'on' || mode === 'off') await child(mode === 'on');
else {
  const self = fileURLToPath(import.meta.url);
  for (let r = 0; r < reps; r++) {
    for (const m of ['off', 'on']) {
      const out = execFileSync(process.execPath, ['--import', 'tsx', self, String(rows), '1', String(trials), m], { env: { ...process.env, GPUFLOW_TRACE_START: '1' } });
      // Only the JSON line (tfjs prints a banner on stdout).
      for (const l of out.toString().split('\n')) if (l.startsWith('{')) process.stdout.write(l + '\n');
    }
  }
}
