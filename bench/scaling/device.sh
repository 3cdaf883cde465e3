#!/bin/bash
# One call on a multi-GPU machine (issue 30), after bench/engine-gpu/build.sh here; carry .device
# and .devbuild (the prelude is sourced by the call when the tree sits elsewhere). In that call:
# the bare driver start of 1, 2 and all GPUs (bench/scaling/driver_start.py); then fresh
# `gpuflow run`s of the product's bundles (.devbuild/cli.mjs -> out/cli) on 1, 2, 4 (and 8) GPUs,
# one worker per GPU, backend cuda, no CPU worker, timed as whole processes with the start-up
# trace (bench/engine-gpu/timed-run.mjs): the 2 TB seed workload sliced and every sample in
# float64 and float32 (N=500000, chunks 10000), matmul 16384² (chunks 4096) and 32768² (chunks
# 8192) float32, the 78 M-row groupby; A/B with the GPU coarsening off (GPUFLOW_COARSEN=0), the
# default worker set (GPUs plus CPU workers) beside the GPUs alone; Dask + CuPy on the seed
# workload (one GPU, the threaded scheduler; dask wheels from .whl when carried); the GPU checks
# (bench/native/device-run.ts --resident). Everything lands in $OUT/scaling.jsonl (one JSON line a
# run, `label` says which) and $OUT/machine.txt.
command -v node >/dev/null 2>&1 || source .device/prelude
# NVLink multicast stays off (KINDS.md).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export GPUFLOW_COMMIT=${GPUFLOW_COMMIT:-unknown}
J=$OUT/scaling.jsonl
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total,persistence_mode --format=csv,noheader; nvidia-smi topo -m; nproc; } 2>&1 | tee $OUT/machine.txt
# The addon, built here (node-addon-api's headers from .devbuild/node-addon-api); nothing runs without it.
export GPUFLOW_NATIVE_DIR=$PWD/native/build
# A carried build (native/build from the same nvcc 13.0, sm_90) is used when it loads with CUDA;
# else it is built here.
if [ -f native/build/gpuflow.node ] && node -e "process.exit(require('$PWD/native/build/gpuflow.node').cudaStatus().cuda?0:1)" 2>/dev/null; then
  echo "addon: the carried build" | tee -a $OUT/machine.txt
else
  t0=$(date +%s); node native/build.mjs --force 2>&1 | tail -2; echo "addon build: $(( $(date +%s) - t0 )) s" | tee -a $OUT/machine.txt
fi
node -e "const a=require('$PWD/native/build/gpuflow.node');const s=a.cudaStatus();console.log(JSON.stringify(s));process.exit(s.cuda?0:1)" || { echo "the addon did not build with CUDA: stopping" | tee -a $OUT/machine.txt; exit 1; }
[ -d node_modules ] || cp -r .devbuild/node_modules node_modules
ALL=$(nvidia-smi --query-gpu=index --format=csv,noheader | paste -sd, -)
NG=$(echo $ALL | tr ',' '\n' | wc -l)
SETS="0"; [ $NG -ge 2 ] && SETS="$SETS 0,1"; [ $NG -ge 4 ] && SETS="$SETS 0,1,2,3"; [ $NG -ge 8 ] && SETS="$SETS $ALL"
timeout 60 python3 bench/scaling/driver_start.py $NG 2 | tee -a $J
export GPUFLOW_TRACE_START=1
CLI=.devbuild/cli.mjs
run() { # label devices workflow [cli args...]; env passes through
  local label=$1 devs=$2 wf=$3; shift 3
  GPUFLOW_DEVICES=$devs node bench/engine-gpu/timed-run.mjs "{\"label\":\"$label\",\"devices\":\"$devs\",\"gpus\":$(echo $devs | tr ',' '\n' | wc -l),\"coarsen\":\"${GPUFLOW_COARSEN:-1}\"}" --timeout ${T:-90} -- \
    $CLI run $wf --no-store --json "$@" | tee -a $J | cut -c1-260
}
GPU="--backend cuda --cpu-workers 0"
SEED="--param N=500000 --param chunks=10000"
seeds() { # devices reps [cli args]
  local devs=$1 reps=$2; shift 2
  for rep in $(seq 1 $reps); do for dt in float64 float32; do
    run seed-sliced-$dt $devs examples/seed-benchmark.json $SEED --param dtype=$dt "$@"
    run seed-full-$dt $devs bench/engine-gpu/seed-full.json $SEED --param dtype=$dt "$@"
  done; done
}
# A/B on all GPUs (ONLY=inline runs this alone): small outputs sent with their task's done and
# handed on inline by main (GPUFLOW_INLINE_VALUES=1, the default) against fetched from the peer
# that made them and the result fetched after the run (=0, before); alternated, 3 runs each, the
# sliced seeds and every-sample float32, one GPU for the sliced float32 too.
inline() {
  for rep in 1 2 3; do for v in 0 1; do
    for dt in float32 float64; do GPUFLOW_INLINE_VALUES=$v run ab-inline$v-seed-sliced-$dt ${SETS##* } examples/seed-benchmark.json $SEED --param dtype=$dt $GPU; done
    GPUFLOW_INLINE_VALUES=$v run ab-inline$v-seed-full-float32 ${SETS##* } bench/engine-gpu/seed-full.json $SEED --param dtype=float32 $GPU
    GPUFLOW_INLINE_VALUES=$v run ab-inline$v-seed-sliced-float32 0 examples/seed-benchmark.json $SEED --param dtype=float32 $GPU
  done; done
}
# A/B of the GPU workers' device warm-up (worker/device-warmup.ts; ONLY=warmdev runs this alone):
# tiny programs on every libuv thread before ready (GPUFLOW_WARM_DEVICE=1, the default), right
# after ready (=after) and none (=0, before); and none with every kernel loaded at context
# creation (CUDA_MODULE_LOADING=EAGER: whether lazy kernel loading is what the first tasks pay).
# Alternated, 3 runs each, the sliced seeds on all GPUs and the sliced float32 on one.
# `node bench/scaling/phases.mjs $OUT/scaling.jsonl ab-warmdev` prints each arm's phases (warm:
# the longest worker warm-up; late: run start -> last worker ready).
warmdev() {
  for rep in 1 2 3; do for v in 0 1 after eager; do
    case $v in eager) E="GPUFLOW_WARM_DEVICE=0 CUDA_MODULE_LOADING=EAGER";; *) E=GPUFLOW_WARM_DEVICE=$v;; esac
    ( export $E
      for dt in float32 float64; do run ab-warmdev$v-seed-sliced-$dt ${SETS##* } examples/seed-benchmark.json $SEED --param dtype=$dt $GPU; done
      run ab-warmdev$v-seed-sliced-float32 0 examples/seed-benchmark.json $SEED --param dtype=float32 $GPU )
  done; done
  node bench/scaling/phases.mjs $J ab-warmdev | tee $OUT/phases-warmdev.jsonl
}
# A/B of the kernel calls in flight on each GPU worker (GPUFLOW_GPU_CONCURRENCY, default 16;
# ONLY=gpuconc, or ONLY="warmdev gpuconc" for both): 16 tasks share a GPU and end together, fewer
# end one after another (earlier first results and combines) if the GPU stays as busy. 16, 8, 4
# alternated, 3 runs each: the sliced seeds and every-sample float32 on all GPUs, sliced float32 on one.
gpuconc() {
  for rep in $(seq 1 ${CONC_REPS:-3}); do for c in ${CONC_ARMS:-16 8 4}; do
    for dt in float32 float64; do GPUFLOW_GPU_CONCURRENCY=$c run ab-conc$c-seed-sliced-$dt ${SETS##* } examples/seed-benchmark.json $SEED --param dtype=$dt $GPU; done
    GPUFLOW_GPU_CONCURRENCY=$c run ab-conc$c-seed-full-float32 ${SETS##* } bench/engine-gpu/seed-full.json $SEED --param dtype=float32 $GPU
    GPUFLOW_GPU_CONCURRENCY=$c run ab-conc$c-seed-sliced-float32 0 examples/seed-benchmark.json $SEED --param dtype=float32 $GPU
    # The one-GPU every-sample float64 run, the workload 16 in flight was chosen for.
    GPUFLOW_GPU_CONCURRENCY=$c run ab-conc$c-seed-full-float64 0 bench/engine-gpu/seed-full.json $SEED --param dtype=float64 $GPU
  done; done
  node bench/scaling/phases.mjs $J ab-conc | tee $OUT/phases-gpuconc.jsonl
}
# A/B on all GPUs (ONLY=ab runs this alone, skipping the rest): the coarsened task size
# (GPUFLOW_GPU_TASK_ELEMENTS 2^28, 2^29 against the default 2^30) and the cuBLAS / cuSOLVER warm-up
# left out (GPUFLOW_WARM_LIBRARIES=0), which otherwise runs beside the first kernels; one GPU too
# for the warm-up.
ab() {
  for rep in 1 2; do for v in default warm0 e28 e29; do
    case $v in warm0) E=GPUFLOW_WARM_LIBRARIES=0;; e28) E=GPUFLOW_GPU_TASK_ELEMENTS=268435456;; e29) E=GPUFLOW_GPU_TASK_ELEMENTS=536870912;; *) E=AB_DEFAULT=1;; esac
    ( export $E
      for dt in float32 float64; do run ab-$v-seed-sliced-$dt ${SETS##* } examples/seed-benchmark.json $SEED --param dtype=$dt $GPU; done
      run ab-$v-seed-full-float32 ${SETS##* } bench/engine-gpu/seed-full.json $SEED --param dtype=float32 $GPU
      case $v in default|warm0) run ab-$v-seed-sliced-float32 0 examples/seed-benchmark.json $SEED --param dtype=float32 $GPU;; esac )
  done; done
}
# The warm pool: a `gpuflow serve` on all GPUs (its store needs the real better-sqlite3 in
# node_modules), then `gpuflow run`s with the same options and database, which hand their runs to
# it (main/cli/attach.ts): process wall with no worker started. Then a serve on GPU 0 alone, the
# warm one-GPU baseline of the same matmul, groupby and sliced seed. WARM_TRACE=1: serve traces
# its runs (GPUFLOW_TRACE_START=1) and each serve's runs' phases, request to stored record, go to
# $OUT/warm-trace-phases.jsonl (bench/engine/run-trace-phases.mjs; in order: the runs of wrun below).
warm() {
# The real module, not the bench stub (build.sh --with-tfjs stubs it: a require passes, a database does not).
if node -e "new (require('better-sqlite3'))(':memory:')" 2>/dev/null; then
  W=/tmp/warm-$$; mkdir -p $W
  wserve() { # devices: a serve on them, its database $W/g-<devices>.db
    WDEV=$1; WDB=$W/g-$(echo $1 | tr ',' '_').db
    GPUFLOW_DEVICES=$WDEV GPUFLOW_DB=$WDB GPUFLOW_TRACE_START=${WARM_TRACE:-0} node $CLI serve --port 0 $GPU > $W/serve.out 2> $W/serve.err &
    SERVE=$!
    for i in $(seq 1 150); do grep -q "gpuflow serve: http" $W/serve.out && break; sleep 0.2; done
    echo "serve on $WDEV: $(cat $W/serve.out)" | tee -a $OUT/machine.txt
  }
  wrun() { # label workflow [cli args]: `run` without --no-store, on serve's database
    local label=$1 wf=$2; shift 2
    GPUFLOW_DB=$WDB GPUFLOW_DEVICES=$WDEV node bench/engine-gpu/timed-run.mjs "{\"label\":\"$label\",\"devices\":\"$WDEV\",\"gpus\":$(echo $WDEV | tr ',' '\n' | wc -l),\"attached\":true}" --timeout 60 -- \
      $CLI run $wf --json "$@" | tee -a $J | cut -c1-260
  }
  wstop() {
    kill -TERM $SERVE; wait $SERVE; grep -v '^gpuflow-trace' $W/serve.err | tail -3 | tee -a $OUT/machine.txt; rm -f $W/serve.out
    if [ "${WARM_TRACE:-0}" = 1 ]; then node bench/engine/run-trace-phases.mjs $W/serve.err --label "serve-$WDEV" | tee -a $OUT/warm-trace-phases.jsonl; fi
  }
  wserve ${SETS##* }
  for rep in 1 2 3; do for dt in float32 float64; do wrun warm-seed-sliced-$dt examples/seed-benchmark.json $SEED --param dtype=$dt $GPU; done; done
  # The same run started here beside the warm serve (--no-attach): the cold process it replaces.
  for rep in 1 2; do wrun cold-seed-sliced-float32 examples/seed-benchmark.json $SEED --param dtype=float32 $GPU --no-attach; done
  for rep in 1 2 3; do wrun warm-matmul-16384 bench/scaling/matmul.json --param N=16384 --param chunks=4096 $GPU; wrun warm-groupby-78M examples/dataframe-groupby.json --param rows_per_partition=2600000 $GPU; done
  wstop
  wserve 0
  for rep in 1 2 3; do
    wrun warm-matmul-16384 bench/scaling/matmul.json --param N=16384 --param chunks=4096 $GPU
    wrun warm-groupby-78M examples/dataframe-groupby.json --param rows_per_partition=2600000 $GPU
    wrun warm-seed-sliced-float32 examples/seed-benchmark.json $SEED --param dtype=float32 $GPU
  done
  wstop
else
  echo "warm pool: better-sqlite3 does not load here: not measured" | tee -a $OUT/machine.txt
fi
}
if [ "$ONLY" = ab ]; then ab; exit 0; fi
if [ "$ONLY" = inline ]; then inline; exit 0; fi
if [ "$ONLY" = warm ]; then warm; exit 0; fi
case " $ONLY " in *" warmdev "*|*" gpuconc "*)
  case " $ONLY " in *" warmdev "*) warmdev;; esac
  case " $ONLY " in *" gpuconc "*) gpuconc;; esac
  exit 0;;
esac
# REPS runs of each on 1 GPU and on all, one on the sets between.
for devs in $SETS; do
  r=1; [ "$devs" = 0 ] || [ "$devs" = "${SETS##* }" ] && r=${REPS:-2}
  seeds $devs $r $GPU
  for rep in $(seq 1 $r); do T=60 run matmul-16384 $devs bench/scaling/matmul.json --param N=16384 --param chunks=4096 $GPU; done
  for rep in $(seq 1 $r); do T=60 run groupby-78M $devs examples/dataframe-groupby.json --param rows_per_partition=2600000 $GPU; done
  [ $r -gt 1 ] && T=90 run matmul-32768 $devs bench/scaling/matmul.json --param N=32768 --param chunks=8192 $GPU
done
# A/B: the chunks as asked (no coarsening for the GPUs), on one GPU and on all (SKIP_BEFORE=1: not).
[ -z "$SKIP_BEFORE" ] && for devs in 0 ${SETS##* }; do GPUFLOW_COARSEN=0 seeds $devs 1 $GPU; done
# The default worker set (GPU workers plus CPU workers) against the GPUs alone, all GPUs.
for rep in 1 2; do for dt in float64 float32; do
  run default-set-seed-sliced-$dt ${SETS##* } examples/seed-benchmark.json $SEED --param dtype=$dt
done; done
# A/B of the multi-GPU lowerings on all GPUs: GPUFLOW_COARSEN=0 also turns off the row-panel
# matmul and the per-GPU groupby tree (gpuShare 0: the SUMMA blocks and the split_every tree as
# before); and the groupby without the cuBLAS / cuSOLVER warm-up beside its first kernels.
if [ -z "$SKIP_BEFORE" ]; then
GPUFLOW_COARSEN=0 T=60 run ab-before-matmul-16384 ${SETS##* } bench/scaling/matmul.json --param N=16384 --param chunks=4096 $GPU
GPUFLOW_COARSEN=0 T=60 run ab-before-groupby-78M ${SETS##* } examples/dataframe-groupby.json --param rows_per_partition=2600000 $GPU
fi
# A/B of issue 30's start-up items on all GPUs: the library warm-up after every context whatever
# the graph (GPUFLOW_WARM_LIBRARIES=eager, the old behaviour) on the groupby; the run waiting for
# every worker (GPUFLOW_START_ON_FIRST=0) on the sliced seeds; first gemms in the library phase
# (GPUFLOW_WARM_GEMM=1) on matmul 16384²; small outputs fetched as before (GPUFLOW_INLINE_VALUES=0)
# on the sliced seeds; the device warm-up left out (GPUFLOW_WARM_DEVICE=0) on the sliced seeds.
# SKIP_AB=1 leaves these out (each has had its own call: ONLY=ab, inline, warmdev).
[ -z "$SKIP_AB" ] && for rep in 1 2; do
  GPUFLOW_WARM_LIBRARIES=eager T=60 run ab-eager-groupby-78M ${SETS##* } examples/dataframe-groupby.json --param rows_per_partition=2600000 $GPU
  for dt in float32 float64; do GPUFLOW_START_ON_FIRST=0 run ab-waitall-seed-sliced-$dt ${SETS##* } examples/seed-benchmark.json $SEED --param dtype=$dt $GPU; done
  # Small outputs fetched from their peers and the result fetched after the run, as before (inline() above).
  for dt in float32 float64; do GPUFLOW_INLINE_VALUES=0 run ab-inline0-seed-sliced-$dt ${SETS##* } examples/seed-benchmark.json $SEED --param dtype=$dt $GPU; done
  # No device warm-up before ready (warmdev() above).
  for dt in float32 float64; do GPUFLOW_WARM_DEVICE=0 run ab-warmdev0-seed-sliced-$dt ${SETS##* } examples/seed-benchmark.json $SEED --param dtype=$dt $GPU; done
  GPUFLOW_WARM_GEMM=1 T=60 run ab-warmgemm-matmul-16384 ${SETS##* } bench/scaling/matmul.json --param N=16384 --param chunks=4096 $GPU
done
# WITH_CONC=1: the calls-in-flight A/B after the runs above (CONC_ARMS / CONC_REPS pick its arms).
[ -n "$WITH_CONC" ] && gpuconc
warm
# Dask + CuPy, same machine and call (one GPU, threaded scheduler).
[ ! -d .whl ] && [ -d .devbuild/dask/whl ] && ln -s .devbuild/dask/whl .whl
if [ -d .whl ]; then python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site; fi
[ $SECONDS -lt ${DASK_BEFORE_S:-330} ] && PYTHONUNBUFFERED=1 timeout ${DASK_TIMEOUT:-70} python3 bench/engine-gpu/dask_cupy.py '[{"n":500000,"dtype":"float64","mode":"sliced"},{"n":500000,"dtype":"float64","mode":"full"},{"n":500000,"dtype":"float32","mode":"sliced"}]' | sed 's/^{/{"label":"dask-cupy",/' | tee -a $J
# The GPU checks (CUDA ops against the CPU kernels), when the call has time left.
[ -z "$NO_CHECKS" ] && [ $SECONDS -lt ${CHECKS_BEFORE_S:-380} ] && timeout ${CHECKS_TIMEOUT:-70} node .devbuild/device-run.mjs --out $OUT --resident 2>&1 | grep -iv "^{" | tail -15
