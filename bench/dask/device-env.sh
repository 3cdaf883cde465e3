# Sourced by bench/dask/device.sh and gap_device.sh (from the repo root): $OUT and its JSON-lines
# file $J (named by $1, emptied), the interpreter $PY, Debian's packed dask / distributed first on
# PYTHONPATH (the bridge, its Nannies and workers inherit it), NVML diagnostics off (distributed
# 2022.12 dies in them with a current pynvml).
OUT=${OUT:-/tmp/gpuflow-dask-device}
mkdir -p "$OUT"
J=$OUT/$1
: > "$J"
PY=${GPUFLOW_PYTHON:-python3}
export PYTHONPATH="$PWD/.devbuild/dask/site${PYTHONPATH:+:$PYTHONPATH}"
export DASK_DISTRIBUTED__DIAGNOSTICS__NVML=False
