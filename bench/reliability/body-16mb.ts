/**
 * How long `gpuflow serve` takes to answer a 16 MiB JSON body, and how long its loop stalls
 * meanwhile (issue 29.2): a body of ~8 M small values (refused by the element budget before
 * JSON.parse) and one whose 16 MiB is a single string (parsed and validated). GET /api/devices is
 * polled every 10 ms during each; prints one JSON line per body: answer time, status, largest
 * poll latency, serve's RSS after (from /proc).
 *
 *   GPUFLOW_NO_BUNDLE=1 node --import tsx bench/reliability/body-16mb.ts
 *
 * Before the fix (issue text): 20–49 s and +1.6 GB for one such body.
 */
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { seedDoc, startServe, tempDir } from '../../test/reliability/helpers';

const dir = tempDir();
const s = await startServe(['--virtual-gpus', '1', '--backend', 'js', '--threads', '1', '--db', path.join(dir, 'gpuflow.db')]);
const headers = { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' };
const rssMiB = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${s.child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const peakMiB = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${s.child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const head = `{"doc":${JSON.stringify(seedDoc())},"params":{"x":`;
const room = 16 * 1024 * 1024 - head.length - 8;
const bodies: Record<string, string> = {
  smallValues: `${head}[${'0,'.repeat(Math.floor(room / 2) - 1)}0]}}`,
  oneString: `${head}"${'a'.repeat(room - 2)}"}}`,
};
try {
  for (const [name, body] of Object.entries(bodies)) {
    let stop = false;
    const lat: number[] = [];
    const poll = (async () => {
      while (!stop) {
        const a = performance.now();
        await fetch(`${s.base}/api/devices`, { headers });
        lat.push(performance.now() - a);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const a = performance.now();
    const res = await fetch(`${s.base}/api/validate`, { method: 'POST', headers, body });
    await res.text();
    const ms = performance.now() - a;
    stop = true;
    await poll;
    console.log(JSON.stringify({ bench: 'body-16mb', body: name, bytes: body.length, status: res.status, answerMs: Math.round(ms), polls: lat.length, maxPollMs: Math.round(Math.max(...lat)), rssMiB: Math.round(rssMiB()), peakRssMiB: Math.round(peakMiB()) }));
  }
} finally {
  await s.stop();
  rmSync(dir, { recursive: true, force: true });
}
