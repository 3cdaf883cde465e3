/**
 * V8 warm-up of a GPU worker's per-task JavaScript while its CUDA context is being made. A cold
 * worker runs its first thousand tasks before V8 has optimised the code they go through, and on
 * short chunk kernels (0.14-0.3 ms) the worker's JavaScript is then what the GPU waits for: zod's
 * parsing of `execute` messages was 15 % of a cold worker's thread and the program encoding 2-3 %
 * (bench/results/profiles/engine-worker-main-h100-9fb41a0.txt). The context takes the worker
 * 0.2 s in which its thread has nothing else to do, so it parses and encodes representative
 * messages then, in slices that let `init` and anything else in. Pure work: nothing is sent,
 * stored or run. GPUFLOW_JIT_WARMUP=0 turns it off (bench A/B).
 */
import { toWorkerSchema } from '../common/messages';
import { encodeProgram } from '../native/program-code';

/** A chunk task of the seed workflow (generate, add, slice, sum) as main sends it; a combine of two partials. */
export const SAMPLES: unknown[] = [
  {
    type: 'execute',
    runId: '00000000-0000-0000-0000-000000000000',
    key: 'r1:total/sum(0,1)',
    node: 'total',
    op: 'normal+add+slice+sum',
    spec: {
      kind: 'program',
      program: {
        dtype: 'float64',
        shape: [500, 500],
        expr: {
          kind: 'binary',
          op: 'add',
          a: { kind: 'leaf', leaf: { kind: 'random', dist: 'normal', seed: 0, a: 10, b: 1, shape: [4000, 4000], region: { start: [0, 1000], step: [2, 2], count: [500, 500] } } },
          b: { kind: 'leaf', leaf: { kind: 'fill', value: 1 } },
        },
        reduce: { op: 'sum', axis: null, ddof: 0, offset: [0, 500], globalShape: [2000, 2000] },
      },
    },
    deps: [],
  },
  {
    type: 'execute',
    runId: '00000000-0000-0000-0000-000000000000',
    key: 'r1:total/sum-combine0(0)',
    node: 'total',
    op: 'sum-combine',
    spec: { kind: 'combine', finalize: false, ddof: 0 },
    // A partial made here, and one made on another GPU that main sends inline (INLINE_VALUE_BYTES).
    deps: [
      { key: 'r1:total/sum(0,0)', at: null },
      { key: 'r1:total/sum(0,5)', at: { workerId: 'gpu1', host: '127.0.0.1', port: 1 }, value: { kind: 'partial', partial: { op: 'sum', shape: [], fields: { sum: new Float64Array([1]) } } } },
    ],
  },
];

/** Parses and encodes the samples once; returns how many parsed (all of them while they stay representative). */
export function warmOnce(): number {
  let ok = 0;
  for (const raw of SAMPLES) {
    const parsed = toWorkerSchema.safeParse(raw);
    if (!parsed.success) continue;
    ok++;
    const msg = parsed.data;
    try {
      if (msg.type === 'execute' && msg.spec.kind === 'program') encodeProgram(msg.spec.program, []);
    } catch {
      // A sample the encoder no longer takes warms the parser still; the unit test says so.
    }
  }
  return ok;
}

/**
 * Repeats `warmOnce` in slices of ~2 ms until `until` settles, `maxMs` has passed or `rounds`
 * rounds are done; resolves with the rounds done.
 */
export function warmWhile(until: Promise<unknown>, opts: { maxMs?: number; rounds?: number } = {}): Promise<number> {
  const deadline = performance.now() + (opts.maxMs ?? 250);
  const most = opts.rounds ?? 3000;
  let over = false;
  void until.then(
    () => (over = true),
    () => (over = true),
  );
  let rounds = 0;
  return new Promise((resolve) => {
    const slice = () => {
      const end = Math.min(performance.now() + 2, deadline);
      while (!over && rounds < most && performance.now() < end) {
        warmOnce();
        rounds++;
      }
      if (over || rounds >= most || performance.now() >= deadline) resolve(rounds);
      else setImmediate(slice);
    };
    setImmediate(slice);
  });
}
