#!/bin/bash
# The dataframe groupby on the GPU machine in one call (< 90 s once the addon is built):
# the df GPU checks, then 30 x 2.6M rows groupby name / mean x on a GPU worker (cuda kernel), on
# CPU workers (one per core) and with pandas, same run; JSON + markdown into $OUT.
# Here first: sh bench/dataframes/build.sh; carry .device and .devbuild. There:
#   bash bench/dataframes/device.sh
# The addon is built only when native/build lacks an up-to-date one (a --force build of every
# kernel takes longer than this script's budget: build it once per session, before).
source .device/prelude
t0=$(date +%s)
node native/build.mjs 2>&1 | tail -1
echo "addon: $(( $(date +%s) - t0 )) s"
export GPUFLOW_NATIVE_DIR=$PWD/native/build
timeout ${DF_TIMEOUT:-85} node .devbuild/dataframes-gpu.mjs --out $OUT ${DF_FLAGS:-}
