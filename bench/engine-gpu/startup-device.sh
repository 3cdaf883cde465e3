#!/bin/bash
# One call on the GPU machine (after bench/engine-gpu/build.sh here; carry .device, .devbuild, out):
# the process wall of fresh `gpuflow run`s above their engine run, with the start-up trace, A/B in
# the same call and interleaved: the GPU workers forked from the driver's /proc listing
# (main/cluster/proc-gpus.ts) or only once nvidia-smi answers (GPUFLOW_PROC_GPUS=0), with and
# without the early nvidia-smi query of the bin (BENCH_NO_EARLY_SMI=1), for the seed workflow; then
# the linear algebra workflows. VARIANTS picks the seed variants. Results in $OUT/startup.jsonl.
source .device/prelude
export GPUFLOW_COMMIT=${GPUFLOW_COMMIT:-unknown}
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv | tee $OUT/machine.txt
# What the hint reads, as this machine has it.
for f in /proc/driver/nvidia/gpus/*/information; do echo "== $f"; cat "$f"; done 2>&1 | tee -a $OUT/machine.txt
ls /dev/nvidia* 2>&1 | tr '\n' ' ' | tee -a $OUT/machine.txt; echo
node native/build.mjs --force 2>&1 | tail -1
export GPUFLOW_NATIVE_DIR=$PWD/native/build
# What the cuda backend's start asks on the JS thread after the context: info() or cudaStatus().
for rep in 1 2 3; do for first in info status; do node bench/engine-gpu/info-cost.mjs $first | tee -a $OUT/startup.jsonl; done; done
[ -d node_modules ] || cp -r .devbuild/node_modules node_modules
export GPUFLOW_TRACE_START=1
for rep in 1 2 3 4 5 6; do
  s=$(date +%s.%N); node -e 0; e=$(date +%s.%N)
  echo "{\"kind\":\"node-e-0\",\"rep\":$rep,\"processSeconds\":$(python3 -c "print($e-$s)")}" | tee -a $OUT/startup.jsonl
  for n in 1000 100000; do
    for v in ${VARIANTS:-hint+smi nohint+smi hint}; do
      case $v in hint*) H=1;; *) H=0;; esac
      case $v in *smi) S=0;; *) S=1;; esac
      GPUFLOW_PROC_GPUS=$H BENCH_NO_EARLY_SMI=$S node bench/engine-gpu/timed-run.mjs "{\"kind\":\"startup\",\"variant\":\"$v\",\"n\":$n,\"rep\":$rep}" --timeout 60 -- \
        .devbuild/cli.mjs run examples/seed-benchmark.json --param N=$n --param chunks=10000 --no-store --json --backend cuda --cpu-workers 0 | tee -a $OUT/startup.jsonl | cut -c1-220
    done
  done
done
# The linear algebra workflows through the same start (the library phase of the warm-up, then
# cuSOLVER / cuBLAS): engine run and process wall, and the values to check against each other.
for rep in 1 2 3; do for wf in svd-engine matmul-engine; do
  node bench/engine-gpu/timed-run.mjs "{\"kind\":\"linalg\",\"workflow\":\"$wf\",\"rep\":$rep}" -- \
    .devbuild/cli.mjs run bench/native/$wf.json --no-store --json --backend cuda --cpu-workers 0 | tee -a $OUT/startup.jsonl | cut -c1-300
done; done
node -e "
const rows=require('fs').readFileSync('$OUT/startup.jsonl','utf8').trim().split('\n').map(JSON.parse).filter(r=>r.kind==='startup'&&r.status==='finished');
const med=a=>{a=[...a].sort((x,y)=>x-y);return a[Math.floor((a.length-1)/2)]};
for (const n of [1000,100000]) for (const v of [...new Set(rows.map(x=>x.variant))]) {
  const r=rows.filter(x=>x.n===n&&x.variant===v); if(!r.length) continue;
  const at=(l)=>med(r.map(x=>(x.trace.find(t=>t[1]===l)||[0,0,NaN])[2]));
  console.log(JSON.stringify({kind:'median',workflow:'seed-benchmark',n,variant:v,runs:r.length,processSeconds:med(r.map(x=>x.processSeconds)),aboveSeconds:med(r.map(x=>x.aboveSeconds)),fork:at('fork-gpuflow-gpu0'),discovered:at('discovered-1-gpus'),modules:at('worker-modules'),warmup:at('worker-warmup-start'),context:at('worker-context-done'),ready:at('workers-ready'),runStart:at('run-start')}));
}
const lin=require('fs').readFileSync('$OUT/startup.jsonl','utf8').trim().split('\n').map(JSON.parse).filter(r=>r.kind==='linalg'&&r.status==='finished');
for (const wf of ['svd-engine','matmul-engine']) { const r=lin.filter(x=>x.workflow===wf); if(r.length) console.log(JSON.stringify({kind:'median',workflow:wf,runs:r.length,durationMs:med(r.map(x=>x.durationMs)),processSeconds:med(r.map(x=>x.processSeconds)),aboveSeconds:med(r.map(x=>x.aboveSeconds))})); }
" | tee -a $OUT/startup.jsonl
