#!/bin/bash
# The dataframe groupby on the GPU machine in one call (< 2 min once the addon is built):
# the df GPU checks, then 30 x 2.6M rows groupby name / mean x with a GPU worker's kernels
# (generated and grouped on the device), on CPU workers (one per core) and with pandas, same run;
# then the whole workflow through the engine: one GPU worker, then 16 CPU worker processes (fused
# and unfused). JSON + markdown into $OUT.
# Here first: sh bench/engine-gpu/build.sh && sh bench/dataframes/build.sh; carry .device and
# .devbuild. There:  bash bench/dataframes/device.sh
# The addon is built only when native/build lacks an up-to-date one (DF_NATIVE_DIR: use that
# build instead, made by the caller).
source .device/prelude
if [ -z "$DF_NATIVE_DIR" ]; then
  t0=$(date +%s)
  node native/build.mjs 2>&1 | tail -1
  echo "addon: $(( $(date +%s) - t0 )) s"
fi
export GPUFLOW_NATIVE_DIR=${DF_NATIVE_DIR:-$PWD/native/build}
timeout ${DF_TIMEOUT:-85} node .devbuild/dataframes-gpu.mjs --out $OUT ${DF_FLAGS:-}
export GPUFLOW_WORKER_ENTRY=$PWD/.devbuild/gpuflow/worker.js
E="--partitions 30 --rows 2600000 --out $OUT"
timeout 90 node .devbuild/dataframes-engine.mjs $E --gpus 1 --reps ${ENGINE_REPS:-5} 2>&1 | tail -7
timeout 90 node .devbuild/dataframes-engine.mjs $E --workers $(nproc) --reps 3 2>&1 | tail -5
timeout 90 node .devbuild/dataframes-engine.mjs $E --workers $(nproc) --reps 2 --unfused 2>&1 | tail -4
