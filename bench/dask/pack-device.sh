#!/bin/sh
# Packs what bench/dask/device.sh needs on the GPU machine into the ignored folder .devbuild/ (carry
# .devbuild, .device and out there). That machine has python3.12 with numpy, pandas, CuPy, psutil,
# pyyaml, msgpack, toolz, cloudpickle, sortedcontainers, click, jinja2, packaging and fsspec, but no
# dask, distributed, tornado, tblib, zict (nor their small needs heapdict, partd, locket), and no
# network. No registry reachable here serves distributed, so the pack is Debian's own pure-Python
# copies of them (dask / distributed 2022.12, the release the issue's goal names), each with its
# *.egg-info so importlib.metadata finds the versions; tests and bytecode are left out. They go in
# .devbuild/dask/site, which device.sh puts first on PYTHONPATH (the bridge's and the workers'
# environment inherit it). Then node-addon-api's headers and the gpuflow bundles
# (bench/engine-gpu/build.sh). The call carries .device, out, .devbuild/dask, .devbuild/cli.mjs,
# .devbuild/node_modules and .devbuild/node-addon-api (about 45 MiB with the tree).
#   bench/dask/pack-device.sh [--no-bundles]
set -e
cd "$(dirname "$0")/../.."
SRC=${DEBIAN_DIST_PACKAGES:-/usr/lib/python3/dist-packages}
D=.devbuild/dask/site
rm -rf "$D"
mkdir -p "$D"
# Each entry: the module (folder or .py) and its metadata folder's prefix in dist-packages.
for m in dask:dask- distributed:distributed- tornado:tornado- tblib:tblib- zict:zict- partd:partd- locket:locket- heapdict.py:HeapDict-; do
  mod=${m%%:*}
  meta=${m#*:}
  [ -e "$SRC/$mod" ] || { echo "pack-device: $SRC/$mod is missing (apt install python3-distributed)" >&2; exit 1; }
  # Debian's build-time suites and bytecode stay behind (half the size; nothing imports them).
  tar -C "$SRC" --exclude=__pycache__ --exclude='*/tests' -cf - "$mod" | tar -C "$D" -xf -
  info=$(ls -d "$SRC/$meta"*.egg-info "$SRC/$meta"*.dist-info 2>/dev/null | head -1)
  [ -n "$info" ] || { echo "pack-device: no metadata folder $SRC/$meta* for $mod" >&2; exit 1; }
  cp -r "$info" "$D/"
done
# Dask + CuPy (bench/engine-gpu/dask_cupy.py) is measured, as before, with a current dask: its
# dask.array of 2022.12 predates NumPy 2. The wheels come from this machine's local index
# (/opt/pypi/files; PYPI_FILES to point elsewhere); device.sh installs them into a folder of their own.
W=.devbuild/dask/whl
rm -rf "$W"
mkdir -p "$W"
F=${PYPI_FILES:-/opt/pypi/files}
for w in dask-2026.8.0-py3-none-any.whl partd-1.4.2-py3-none-any.whl locket-1.0.0-py2.py3-none-any.whl toolz-1.1.0-py3-none-any.whl cloudpickle-3.1.2-py3-none-any.whl; do
  [ -f "$F/$w" ] || { echo "pack-device: $F/$w is missing" >&2; exit 1; }
  cp "$F/$w" "$W/"
done
# What was packed, for the record the device run prints beside its figures.
{ (cd "$D" && ls -d *-info); ls "$W"; } > .devbuild/dask/MANIFEST
du -sh .devbuild/dask | sed 's/^/pack-device: /'
# The GPU machine has no node_modules: native/build.mjs finds napi.h in .devbuild/node-addon-api.
mkdir -p .devbuild/node-addon-api && cp node_modules/node-addon-api/*.h .devbuild/node-addon-api/
[ "${1:-}" = --no-bundles ] || sh bench/engine-gpu/build.sh > /dev/null
