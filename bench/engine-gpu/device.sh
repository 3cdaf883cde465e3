#!/bin/bash
# One call on the GPU machine (after bench/engine-gpu/build.sh here; carry .device, .devbuild, .whl, out):
# builds the addon, runs the GPU checks and the bare kernel loops + CuPy (bench/native/device-run.ts
# --seed-only), then the whole engine (`gpuflow run`, one GPU worker, backend cuda) on the seed
# workload, then the fused limit (bench/native/fused_limit.py) and Dask + CuPy. Everything lands in $OUT.
source .device/prelude
export GPUFLOW_COMMIT=${GPUFLOW_COMMIT:-unknown}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv | tee $OUT/machine.txt
python3 -c "import dask" 2>&1 | tail -1 | sed 's/^/dask before wheels: /' | tee -a $OUT/machine.txt
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
t0=$(date +%s)
node native/build.mjs --force 2>&1 | tail -3
echo "addon build: $(( $(date +%s) - t0 )) s"
export GPUFLOW_NATIVE_DIR=$PWD/native/build
cuobjdump -res-usage native/build/gpuflow.node 2>/dev/null | grep -A1 "fastKernelILb0ELb1ELi2ELi0\|fastKernelILb0ELb1ELi0ELi0\|fastKernelILb1ELb1ELi1ELi0\|fastKernelILb1ELb1ELi0ELi0" | grep -o "REG:[0-9]*\|STACK:[0-9]*\|SHARED:[0-9]*\|LOCAL:[0-9]*" | paste -sd' ' | sed 's/^/res-usage (sm_90+sm_80): /'
node .devbuild/device-run.mjs --out $OUT --seed-only ${DEVICE_RUN_FLAGS:-} 2>&1 | grep -v '^{' | head -20
# The engine: one GPU worker (16 tasks in flight), no CPU worker, backend cuda, from the product's
# bundles (out/cli through .devbuild/cli.mjs; carry `out`), with the start-up trace on.
[ -d node_modules ] || cp -r .devbuild/node_modules node_modules
CLI=${GPUFLOW_CLI:-.devbuild/cli.mjs}
export GPUFLOW_TRACE_START=1
for wf in examples/seed-benchmark.json bench/engine-gpu/seed-full.json; do
  for dt in float64 float32; do
    for n in 100000 500000; do
      for rep in $(seq 1 ${ENGINE_REPS:-2}); do
        node bench/engine-gpu/timed-run.mjs "{\"kind\":\"engine\",\"workflow\":\"$wf\",\"dtype\":\"$dt\",\"n\":$n,\"rep\":$rep}" --timeout ${ENGINE_TIMEOUT:-120} -- \
          $CLI run $wf --param N=$n --param chunks=10000 --param dtype=$dt --no-store --json --backend cuda --cpu-workers 0 | tee -a $OUT/engine.jsonl | cut -c1-400
      done
    done
  done
done
# Warm: the same workflow again and again in one engine (bench/engine-gpu/warm-runs.ts), 2 TB.
for wf in examples/seed-benchmark.json bench/engine-gpu/seed-full.json; do for dt in float64 float32; do
  GPUFLOW_WORKER_ENTRY=$PWD/.devbuild/gpuflow/worker.js timeout 60 node .devbuild/warm-runs.mjs --workflow $wf --param N=500000 --param chunks=10000 --param dtype=$dt --reps 3 2>/dev/null | sed "s/^{/{\"dtype\":\"$dt\",/" | tee -a $OUT/warm.jsonl | cut -c1-200
done; done
# A/B of the worker's batch linger (GPUFLOW_BATCH_LINGER_MS 0 vs the default 1), sliced seed, 2 TB.
for rep in 1 2; do for L in 0 1; do for dt in float64 float32; do
  s=$(date +%s.%N)
  GPUFLOW_BATCH_LINGER_MS=$L timeout 60 node $CLI run examples/seed-benchmark.json --param N=500000 --param chunks=10000 --param dtype=$dt --no-store --json --backend cuda --cpu-workers 0 > /tmp/r.json 2>/dev/null
  e=$(date +%s.%N)
  node -e "const r=JSON.parse(require('fs').readFileSync('/tmp/r.json','utf8'));console.log(JSON.stringify({kind:'linger-ab',lingerMs:$L,dtype:'$dt',rep:$rep,processSeconds:$e-$s,durationMs:r.stats.durationMs,value:r.results.total.value}))" | tee -a $OUT/engine-ab.jsonl
done; done; done
# A/B of V8 flags on the worker (GPUFLOW_WORKER_V8_FLAGS): a fresh worker runs its first thousand
# tasks before V8 optimises them, and scavenges often.
for rep in 1 2; do for F in none --no-lazy-feedback-allocation --max-semi-space-size=64 "--no-lazy-feedback-allocation --max-semi-space-size=64"; do for dt in float64 float32; do
  [ "$F" = none ] && FL= || FL="$F"
  GPUFLOW_WORKER_V8_FLAGS="$FL" timeout 60 node $CLI run examples/seed-benchmark.json --param N=500000 --param chunks=10000 --param dtype=$dt --no-store --json --backend cuda --cpu-workers 0 > /tmp/r.json 2>/dev/null
  node -e "const r=JSON.parse(require('fs').readFileSync('/tmp/r.json','utf8'));console.log(JSON.stringify({kind:'v8-ab',flags:'$F',dtype:'$dt',rep:$rep,durationMs:r.stats.durationMs,value:r.results.total.value}))" | tee -a $OUT/engine-ab.jsonl
done; done; done
# The fused limit (issue 4's 1.41 s / 0.61 s), rebuilt over our Philox in the same call.
timeout 120 python3 bench/native/fused_limit.py --reps 3 2>&1 | tee $OUT/fused-limit.jsonl | cut -c1-300
[ -z "$NO_DASK" ] && PYTHONUNBUFFERED=1 timeout 150 python3 bench/engine-gpu/dask_cupy.py '[{"n":100000,"dtype":"float64","mode":"sliced"},{"n":100000,"dtype":"float32","mode":"sliced"},{"n":100000,"dtype":"float64","mode":"full"},{"n":500000,"dtype":"float64","mode":"sliced"}]' | tee $OUT/dask.jsonl
grep -h "^|" $OUT/native-gpu-seed.md | grep -v "cupy" | head -40
