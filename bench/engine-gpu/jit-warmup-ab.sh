#!/bin/bash
# One call on the GPU machine (after bench/engine-gpu/build.sh here; carry .device, .devbuild, out):
# cold `gpuflow run`s of the 2 TB seed (sliced float32 / float64, full float32), a fresh process
# each, with the GPU worker's V8 warm-up during its CUDA context (worker/jit-warmup.ts) on and off
# (GPUFLOW_JIT_WARMUP=0), interleaved. Results in $OUT/jit-ab.jsonl, medians last.
source .device/prelude
node native/build.mjs --force 2>&1 | tail -1
export GPUFLOW_NATIVE_DIR=$PWD/native/build
[ -d node_modules ] || cp -r .devbuild/node_modules node_modules
export GPUFLOW_TRACE_START=1
for rep in 1 2 3 4; do
  for wl in "examples/seed-benchmark.json float32" "examples/seed-benchmark.json float64" "bench/engine-gpu/seed-full.json float32"; do
    set -- $wl
    for J in 1 0; do
      GPUFLOW_JIT_WARMUP=$J node bench/engine-gpu/timed-run.mjs "{\"kind\":\"jit-ab\",\"jit\":$J,\"workflow\":\"$1\",\"dtype\":\"$2\",\"rep\":$rep}" -- \
        .devbuild/cli.mjs run $1 --param N=500000 --param chunks=10000 --param dtype=$2 --no-store --json --backend cuda --cpu-workers 0 | tee -a $OUT/jit-ab.jsonl | cut -c1-200
    done
  done
done
node -e "
const rows=require('fs').readFileSync('$OUT/jit-ab.jsonl','utf8').trim().split('\n').map(JSON.parse).filter(r=>r.status==='finished');
const med=a=>{a=[...a].sort((x,y)=>x-y);return a[Math.floor((a.length-1)/2)]};
for (const k of [...new Set(rows.map(r=>r.workflow+' '+r.dtype))]) for (const j of [1,0]) {
  const r=rows.filter(x=>x.workflow+' '+x.dtype===k&&x.jit===j);
  const warm=r.map(x=>(x.trace.find(t=>t[1].startsWith('worker-jit-warm-'))||[0,'-'])[1]);
  console.log(JSON.stringify({kind:'median',workload:k,jit:j,runs:r.length,durationMs:med(r.map(x=>x.durationMs)),all:r.map(x=>x.durationMs),processSeconds:med(r.map(x=>x.processSeconds)),values:[...new Set(r.map(x=>x.value))],warm}));
}" | tee -a $OUT/jit-ab.jsonl
