#!/usr/bin/env bash
# The GPU machine's measurement for issue 15: gpuflow on Dask (seed_dask.py, one-GPU dask-cuda
# cluster, else a 1-worker LocalCluster, else dask's threaded scheduler) against hand-written
# Dask + CuPy (bench/engine-gpu/dask_cupy.py) on the 2 TB seed workload, in one call.
# Needs native/build/libgpuflow_kernels.so and libgpuflow_kernels_cuda.so (node native/build.mjs
# with nvcc) and dask/distributed importable (DASK_PATH: extra PYTHONPATH entries for them).
#   bench/dask/device.sh [N] [CHUNK] > bench/results/dask-gpu-<commit>.jsonl
set -u
cd "$(dirname "$0")/../.."
N=${1:-500000}
CHUNK=${2:-10000}
export PYTHONPATH="$PWD/python${DASK_PATH:+:$DASK_PATH}${PYTHONPATH:+:$PYTHONPATH}"
export GPUFLOW_CAPI_DIR="${GPUFLOW_CAPI_DIR:-$PWD/native/build}"
export DASK_DISTRIBUTED__DIAGNOSTICS__NVML=False
PY=${PYTHON:-python3}
echo "{\"commit\": \"$(git rev-parse --short HEAD 2>/dev/null)\", \"n\": $N, \"chunk\": $CHUNK}"
for c in local-cuda local:1 threaded; do
  if timeout 900 "$PY" bench/dask/seed_dask.py --n "$N" --chunk "$CHUNK" --cluster "$c"; then break; fi
  echo "{\"impl\": \"gpuflow-dask\", \"cluster\": \"$c\", \"error\": \"failed; trying the next\"}"
done
"$PY" bench/engine-gpu/dask_cupy.py "[{\"n\": $N, \"dtype\": \"float64\", \"mode\": \"sliced\"}]"
