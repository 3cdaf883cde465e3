#!/bin/bash
# One call on a multi-GPU machine (after bench/engine-gpu/build.sh here; carry .device and
# .devbuild): builds the addon, then runs the seed workload (2 TB, chunks 10000; sliced and every
# sample) and a matmul that moves blocks between GPUs, through the whole engine, on 1 GPU
# (GPUFLOW_DEVICES=0) and on every GPU, one worker per GPU found by gpuflow's own discovery.
source .device/prelude
# NVLink multicast stays off (KINDS.md).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader | tee $OUT/machine.txt
t0=$(date +%s); node native/build.mjs --force 2>&1 | tail -1; echo "addon build: $(( $(date +%s) - t0 )) s"
export GPUFLOW_NATIVE_DIR=$PWD/native/build GPUFLOW_WORKER_ENTRY=$PWD/.devbuild/gpuflow/worker.js
ALL=$(nvidia-smi --query-gpu=index --format=csv,noheader | paste -sd, -)
run() { # label devices workflow params...
  local label=$1 devs=$2 wf=$3; shift 3
  local s=$(date +%s.%N)
  GPUFLOW_DEVICES=$devs timeout ${T:-90} node .devbuild/gpuflow/main.mjs run $wf --no-store --json --backend cuda --cpu-workers 0 "$@" > /tmp/r.json 2>/tmp/r.err
  local rc=$? e=$(date +%s.%N)
  node -e "const f=require('fs');let r={};try{r=JSON.parse(f.readFileSync('/tmp/r.json','utf8'))}catch(x){r={error:f.readFileSync('/tmp/r.err','utf8').slice(-600)}};console.log(JSON.stringify({label:'$label',devices:'$devs',rc:$rc,processSeconds:$e-$s,status:r.status,value:r.results&&r.results.total&&r.results.total.value,durationMs:r.stats&&r.stats.durationMs,tasks:r.stats&&r.stats.tasks,transfers:r.stats&&r.stats.transfers,workers:r.stats&&r.stats.workers&&r.stats.workers.map(w=>[w.id,w.tasks,w.busyMs,w.backends]),error:r.error}))" | tee -a $OUT/scaling.jsonl | cut -c1-300
}
for devs in 0 $ALL; do
  for rep in 1 2; do
    run seed-sliced-f64 $devs examples/seed-benchmark.json --param N=500000 --param chunks=10000 --param dtype=float64
    run seed-full-f64 $devs bench/engine-gpu/seed-full.json --param N=500000 --param chunks=10000 --param dtype=float64
  done
  T=120 run matmul-f32 $devs bench/scaling/matmul.json --param N=16384 --param chunks=4096
done
# Blocks between GPUs by CUDA IPC (stats.transfers.ipc / .host / .hostReasons say how they went):
# the same with IPC off, and with every GPU visible to each worker (for drivers that will not map
# a hidden GPU's memory; GPUFLOW_SHOW_ALL_GPUS=1).
if [ "$ALL" != 0 ]; then
  GPUFLOW_IPC=0 T=120 run matmul-f32-no-ipc $ALL bench/scaling/matmul.json --param N=16384 --param chunks=4096
  GPUFLOW_SHOW_ALL_GPUS=1 T=120 run matmul-f32-all-visible $ALL bench/scaling/matmul.json --param N=16384 --param chunks=4096
  for devs in 0 $ALL; do T=180 run matmul-f32-32768 $devs bench/scaling/matmul.json --param N=32768 --param chunks=4096; done
fi
