// Copy to .devbuild/ on use there (PROF_WORKER=../out/cli/worker.mjs), or run in place; PROF_OUT, PROF_MS.
// A worker entry for profiling on the GPU machine: the V8 sampling profiler from the start, stopped
// and written PROF_MS later (the pool kills workers at the end, so no exit hook would run).
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
const s = new Session();
s.connect();
s.post('Profiler.enable');
s.post('Profiler.setSamplingInterval', { interval: 200 });
s.post('Profiler.start');
setTimeout(() => s.post('Profiler.stop', (e, r) => { if (!e) writeFileSync(`${process.env.PROF_OUT}/worker-${process.pid}.cpuprofile`, JSON.stringify(r.profile)); }), Number(process.env.PROF_MS || 1500));
await import(process.env.PROF_WORKER ?? '../../out/cli/worker.mjs');
