// Summarises a V8 .cpuprofile: self and total time by function over a window of the profile.
//   node bench/profiling/cpuprofile-summary.mjs FILE [fromMs] [toMs]
import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const from = Number(process.argv[3] ?? 0), to = Number(process.argv[4] ?? 1e12); // ms since profile start
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map(), total = new Map();
let t = 0; const dts = p.timeDeltas; let count = 0;
for (let i = 0; i < p.samples.length; i++) {
  t += dts[i] / 1000;
  if (t < from || t > to) continue;
  count++;
  const n = byId.get(p.samples[i]);
  const key = (n) => `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber}`;
  self.set(key(n), (self.get(key(n)) ?? 0) + 1);
  const seen = new Set();
  for (let id = n.id; id !== undefined; id = parent.get(id)) { const k = key(byId.get(id)); if (!seen.has(k)) { seen.add(k); total.set(k, (total.get(k) ?? 0) + 1); } }
}
const top = (m, k) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, k).map(([f, c]) => `${(100 * c / count).toFixed(1).padStart(5)}% ${f}`).join('\n');
console.log(`samples ${count} (${(t).toFixed(0)} ms profile)\n-- self\n${top(self, 25)}\n-- total\n${top(total, 30)}`);
