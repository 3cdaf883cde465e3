/**
 * How responsive `gpuflow serve` stays while a big run starts (defect D8): starts serve (no GPU,
 * default workers), polls GET /api/devices every 20 ms, POSTs the seed workflow at N=3162 in
 * 10x10 chunks (114 849 tasks), keeps polling for `ms` (default 15 000), cancels the run and
 * prints one JSON line: the POST's time, and the polls' count, median, p99 and max latency.
 *
 *   node --import tsx bench/reliability/serve-latency.ts [ms]
 *
 * Measured on the 2-core dev container (load 10–13): before the fix max 35.1 s, median 1 s;
 * after it max 0.62–0.98 s, median 9–19 ms (docs/reliability.md, D8).
 */
import { readFileSync } from 'node:fs';
import { startServe } from '../../test/reliability/helpers';

const ms = Number(process.argv[2] ?? 15_000);
const s = await startServe([]);
const headers = { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' };
const doc = JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8'));
try {
  let stop = false;
  let errors = 0;
  const latencies: number[] = [];
  const poll = (async () => {
    while (!stop) {
      const a = performance.now();
      try {
        await fetch(`${s.base}/api/devices`, { headers });
      } catch {
        errors++;
      }
      latencies.push(performance.now() - a);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  await new Promise((r) => setTimeout(r, 1000));
  const idleMax = Math.max(...latencies);
  latencies.length = 0;
  const a = performance.now();
  const res = await fetch(`${s.base}/api/runs`, { method: 'POST', headers, body: JSON.stringify({ doc, params: { N: 3162, chunks: 10 } }) });
  const postMs = performance.now() - a;
  const { runId } = (await res.json()) as { runId: string };
  await new Promise((r) => setTimeout(r, ms));
  stop = true;
  await poll;
  await fetch(`${s.base}/api/runs/${runId}/cancel`, { method: 'POST', headers });
  const sorted = [...latencies].sort((x, y) => x - y);
  const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]);
  console.log(JSON.stringify({ bench: 'serve-latency', status: res.status, postMs: Math.round(postMs), idleMaxMs: Math.round(idleMax), polls: latencies.length, errors, medianMs: at(0.5), p99Ms: at(0.99), maxMs: at(1) }));
} finally {
  await s.stop();
}
