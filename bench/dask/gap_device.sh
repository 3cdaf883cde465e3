#!/bin/bash
# Where the Dask target's time goes on the four-GPU machine (issue 28's gap to its goal): the 2 TB
# sliced float64 seed graph through bench/dask/seed_dask.py on `local-cuda`, in variants that each
# move one thing: threads per GPU worker (GPUFLOW_DASK_GPU_THREADS), batching off
# (GPUFLOW_DASK_BATCH=0), larger chunks (fewer tasks), 1 and 4 GPUs. Each line carries the Dask
# task stream's summary (per worker: tasks, compute seconds summed over threads and their union).
# One JSON line per variant in $OUT/dask-gap.jsonl. Same pack and carry as bench/dask/device.sh.
#   bash bench/dask/gap_device.sh [LABEL...]   (default: every variant)
set -u
cd "$(dirname "$0")/../.."
source bench/dask/device-env.sh dask-gap.jsonl
export PYTHONPATH="$PWD/python:$PYTHONPATH"
[ -f native/build/libgpuflow_kernels_cuda.so ] || node native/build.mjs 2>&1 | tail -2
export GPUFLOW_CAPI_DIR=$PWD/native/build
ALL=$(nvidia-smi --query-gpu=index --format=csv,noheader | paste -sd, -)
ONE=${ALL%%,*}
# variant LABEL CHUNK VAR=VALUE...: one seed_dask.py run with those variables.
WANT=" $* "
variant() {
  local label=$1 chunk=$2 line
  shift 2
  [ "$WANT" = "  " ] || [[ "$WANT" == *" $label "* ]] || return 0
  line=$(env "$@" timeout 90 "$PY" bench/dask/seed_dask.py --n "${N:-500000}" --chunk "$chunk" --cluster local-cuda 2>"$OUT/gap-$label.err" | tail -1)
  [ -n "$line" ] || line="{\"error\":\"$(tail -c 300 "$OUT/gap-$label.err" | tr '\n"\\' '   ')\"}"
  echo "{\"label\":\"$label\",${line#\{}" | tee -a "$J" | cut -c1-1200
}
variant 4gpu-auto-threads 10000 CUDA_VISIBLE_DEVICES="$ALL"
variant 4gpu-1-thread 10000 CUDA_VISIBLE_DEVICES="$ALL" GPUFLOW_DASK_GPU_THREADS=1
variant 4gpu-2-threads 10000 CUDA_VISIBLE_DEVICES="$ALL" GPUFLOW_DASK_GPU_THREADS=2
variant 4gpu-unbatched 10000 CUDA_VISIBLE_DEVICES="$ALL" GPUFLOW_DASK_BATCH=0
variant 4gpu-chunk20000 20000 CUDA_VISIBLE_DEVICES="$ALL"
variant 1gpu-auto-threads 10000 CUDA_VISIBLE_DEVICES="$ONE"
variant 1gpu-1-thread 10000 CUDA_VISIBLE_DEVICES="$ONE" GPUFLOW_DASK_GPU_THREADS=1
variant 1gpu-chunk20000 20000 CUDA_VISIBLE_DEVICES="$ONE"
