/**
 * The engine's own cost per task on a GPU worker, without a GPU: the seed workflow
 * (examples/seed-benchmark.json) through the real engine, one worker of kind gpu (16 kernel calls
 * in flight, 32 tasks placed, device-resident store on), whose CUDA calls are answered by the CPU
 * kernels (GPUFLOW_BENCH_FAKE_CUDA=1, native/fake-cuda.ts) on tiny chunks (N = 500, chunks = 10:
 * the 2 500 chunk programs and 359 combines of the H100's N = 500000, chunks = 10000, each chunk
 * 10 x 10, a few microseconds of kernel). Against it, in the same process and alternating with
 * it: the bare loop of the same addon calls (bench/native/seed-loop.ts: programs encoded up
 * front, 16 in flight), as on the GPU machine. The difference, per chunk task, is what the
 * engine adds to each kernel: main's scheduling and events, the IPC, the worker's JavaScript.
 *
 * Also per task: CPU time of main (this process) and of the worker (/proc/<pid>/stat), and IPC
 * writes each way (messages batched per event-loop turn count once).
 *
 *   npx tsx bench/engine/overhead.ts [--reps 7] [--n 500] [--chunk 10] [--label before]
 *     -> bench/results/engine-overhead-<label>.json
 * Profiles: NODE_OPTIONS='--cpu-prof --cpu-prof-dir=/tmp/prof' (main and the worker each write one).
 */
import { execSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

// The bare loop gets the GPU worker's 16 libuv threads too (the pool sets UV_THREADPOOL_SIZE for
// it); libuv reads it once, before its first thread starts, so the bench runs itself again.
if (process.env.UV_THREADPOOL_SIZE !== '16') {
  const r = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit', env: { ...process.env, UV_THREADPOOL_SIZE: '16' } });
  process.exit(r.status ?? 1);
}
process.env.GPUFLOW_BENCH_FAKE_CUDA = '1';
process.env.GPUFLOW_NVIDIA_SMI = '/nonexistent/nvidia-smi';
// The chunks as asked: with a cuda GPU worker the compiler coarsens a reduction's chunk tasks
// (compile/coarsen.ts), which made this bench's 2 859 tasks 12 and left nothing per task to see.
process.env.GPUFLOW_COARSEN ??= '0';

const { forkLauncher } = await import('../../main/cluster/fork-launcher');
const { Engine } = await import('../../main/engine/engine');
const { validateWorkflow } = await import('../../main/engine/validate');
const { loadNative } = await import('../../native/index');
const { seedLoop } = await import('../native/seed-loop');

const args = process.argv.slice(2);
const opt = (name: string, d: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : d);
const REPS = Number(opt('reps', '7'));
const N = Number(opt('n', '500'));
const CHUNK = Number(opt('chunk', '10'));
const LABEL = opt('label', 'run');
// 'h100': each case twice, with CPU kernels alone (0: the engine's CPU cost) and with a fake
// device taking the H100's time per chunk kernel; or one number of microseconds for every case.
const KERNEL = opt('kernel-us', 'h100');
const IN_FLIGHT = 16;

const loaded = loadNative();
if ('unavailable' in loaded) throw new Error(`the addon is needed (node native/build.mjs): ${loaded.unavailable}`);
const addon = loaded.addon;

const TICK = 100; // clock ticks a second (getconf CLK_TCK on Linux)
function cpuMsOf(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return ((Number(rest[11]) + Number(rest[12])) * 1000) / TICK; // utime + stime
}
const mainCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const discovery = {
  gpus: [{ index: 0, uuid: 'GPU-fake-bench', name: 'fake GPU (CPU kernels)', memoryTotalMiB: 4096, memoryUsedMiB: 0, utilizationPct: 0, pciBusId: '', driverVersion: '' }],
  cpu: { cores: cpus().length, model: cpus()[0]?.model ?? '', memoryTotalBytes: 8 << 30, memoryFreeBytes: 4 << 30 },
};

interface Case {
  dtype: 'float64' | 'float32';
  mode: 'sliced' | 'full';
  /** The H100's time per chunk kernel in the bare loop (issue 20: 0.44, 0.75, 0.92, 1.72 s / 2 500). */
  h100KernelUs: number;
}
const cases: Case[] = [
  { dtype: 'float32', mode: 'sliced', h100KernelUs: 176 },
  { dtype: 'float64', mode: 'sliced', h100KernelUs: 300 },
  { dtype: 'float32', mode: 'full', h100KernelUs: 368 },
  { dtype: 'float64', mode: 'full', h100KernelUs: 688 },
];
const doc = JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8'));
const full = JSON.parse(readFileSync('bench/engine-gpu/seed-full.json', 'utf8'));

/** One engine (a fresh worker, which reads the kernel time from its environment) per case. */
async function measure(c: Case, kernelUs: number) {
  process.env.GPUFLOW_BENCH_FAKE_KERNEL_US = String(kernelUs);
  const engine = new Engine(discovery, { launcher: forkLauncher(), useGpus: true, maxGpus: 1, cpuWorkers: 0, virtualGpus: 0, backends: ['cuda', 'js'] });
  await engine.start();
  try {
    const handle = engine.pool.workers.get('gpu0')!;
    // IPC writes each way: the launcher's process object (one send / one 'message' per batch).
    const proc = Reflect.get(handle, 'proc') as { send(m: unknown): void; onMessage(fn: (raw: unknown) => void): void };
    const ipc = { toWorker: 0, fromWorker: 0 };
    const send = proc.send.bind(proc);
    proc.send = (m) => {
      ipc.toWorker++;
      send(m);
    };
    proc.onMessage(() => ipc.fromWorker++);
    const wf = validateWorkflow(c.mode === 'sliced' ? doc : full, { N, chunks: CHUNK, dtype: c.dtype });
    const chunkTasks = (N / CHUNK) ** 2;
    const engineS: number[] = [];
    const bareS: number[] = [];
    const mainCpu: number[] = [];
    const workerCpu: number[] = [];
    const writes: Array<{ toWorker: number; fromWorker: number }> = [];
    let tasks = 0;
    let value = '';
    for (let r = 0; r <= REPS; r++) {
      const bare = await seedLoop((code, out) => addon.cudaResidentRunProgram(code, [], out).then(() => undefined), c.dtype, N, CHUNK, c.mode, IN_FLIGHT);
      const compiled = await engine.compileAsync(wf);
      const pid = handle.pid!;
      const w0 = cpuMsOf(pid);
      const m0 = mainCpuMs();
      const i0 = { ...ipc };
      const t0 = performance.now();
      const res = await engine.run(wf, undefined, { compiled }).result;
      const s = (performance.now() - t0) / 1000;
      if (res.status !== 'finished') throw new Error(`run ${res.status}: ${res.error}`);
      tasks = res.stats.tasks;
      const v = res.results.total;
      value = JSON.stringify('value' in v ? v.value : v);
      if (r === 0) continue; // the first run warms both up (module loading, JIT)
      engineS.push(s);
      bareS.push(bare.seconds);
      mainCpu.push(mainCpuMs() - m0);
      workerCpu.push(cpuMsOf(pid) - w0);
      writes.push({ toWorker: ipc.toWorker - i0.toWorker, fromWorker: ipc.fromWorker - i0.fromWorker });
    }
    const e = median(engineS);
    const b = median(bareS);
    return {
      ...c,
      kernelUs,
      tasks,
      chunkTasks,
      engineSeconds: +e.toFixed(4),
      bareLoopSeconds: +b.toFixed(4),
      engineOverBare: +(e / b).toFixed(3),
      engineRuns: engineS.map((x) => +x.toFixed(4)),
      bareRuns: bareS.map((x) => +x.toFixed(4)),
      usPerChunkTaskOverBare: +(((e - b) * 1e6) / chunkTasks).toFixed(1),
      // The least disturbed runs (this machine is shared): best engine run against best bare loop.
      usPerChunkTaskOverBareBest: +(((Math.min(...engineS) - Math.min(...bareS)) * 1e6) / chunkTasks).toFixed(1),
      mainCpuUsPerTask: +((median(mainCpu) * 1000) / tasks).toFixed(1),
      workerCpuUsPerTask: +((median(workerCpu) * 1000) / tasks).toFixed(1),
      ipcWritesPerTask: { toWorker: +(median(writes.map((w) => w.toWorker)) / tasks).toFixed(3), fromWorker: +(median(writes.map((w) => w.fromWorker)) / tasks).toFixed(3) },
      value,
    };
  } finally {
    await engine.shutdown();
  }
}

const rows = [];
const only = opt('cases', 'all');
for (const c of cases) {
  if (only !== 'all' && !only.split(',').includes(`${c.dtype}-${c.mode}`)) continue;
  for (const kernelUs of KERNEL === 'h100' ? [0, c.h100KernelUs] : [Number(KERNEL)]) {
    const row = await measure(c, kernelUs);
    console.log(JSON.stringify(row));
    rows.push(row);
  }
}

let commit = 'unknown';
try {
  commit = execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
} catch { /* not a checkout */ }
mkdirSync('bench/results', { recursive: true });
const file = `bench/results/engine-overhead-${LABEL}.json`;
writeFileSync(
  file,
  JSON.stringify(
    {
      bench: 'bench/engine/overhead.ts',
      what: 'seed workflow through the engine on one gpu-kind worker whose CUDA calls run the CPU kernels (GPUFLOW_BENCH_FAKE_CUDA) on tiny chunks, vs the bare loop of the same addon calls (16 in flight) in the same process; medians',
      commit,
      label: LABEL,
      machine: { cpus: cpus().length, model: cpus()[0]?.model, loadavg: loadavg() },
      n: N,
      chunk: CHUNK,
      reps: REPS,
      kernelUs: KERNEL,
      rows,
    },
    null,
    2,
  ) + '\n',
);
console.log(`wrote ${file}`);
// The fake device's thread and the forks' pipes can outlive the engine by a moment: done is done.
process.exit(0);
