"""Dask + CuPy on the seed workload, for bench/engine-gpu/device.sh (same machine, same run as
gpuflow's engine): x = normal(10, 1, (N, N)) in 10000^2 chunks on the GPU through CuPy's default
generator, then (x + 1)[::2, ::2].sum() (sliced) or (x + 1).sum() (full), with Dask's default
threaded scheduler. One JSON line per measurement on stdout.

  python3 bench/engine-gpu/dask_cupy.py '[{"n": 100000, "dtype": "float64", "mode": "sliced"}, ...]'
"""
import json
import sys
import time

try:
    import dask
    import dask.array as da
except Exception as e:  # noqa: BLE001
    print(json.dumps({"impl": "dask+cupy", "error": f"dask not importable: {e}"}), flush=True)
    sys.exit(0)
import cupy as cp

CHUNK = 10000


def build(n, dtype, mode):
    rng = da.random.default_rng(cp.random.default_rng(1234))
    x = rng.standard_normal((n, n), chunks=(CHUNK, CHUNK), dtype=dtype) + 10
    y = x + 1
    if mode == "sliced":
        y = y[::2, ::2]
    return y.sum(dtype="float64")


for spec in json.loads(sys.argv[1]):
    dt = cp.float64 if spec["dtype"] == "float64" else cp.float32
    try:
        build(2 * CHUNK, dt, spec["mode"]).compute()  # warm-up: kernels, pool
        cp.cuda.Device().synchronize()
        t = time.perf_counter()
        v = float(build(spec["n"], dt, spec["mode"]).compute())
        cp.cuda.Device().synchronize()
        s = time.perf_counter() - t
        print(json.dumps({"kind": "seed", "impl": "dask+cupy (default generator, threaded scheduler)", **spec, "seconds": s, "value": v,
                          "dask": dask.__version__, "cupy": cp.__version__}), flush=True)
    except Exception as e:  # noqa: BLE001
        print(json.dumps({"kind": "seed", "impl": "dask+cupy", **spec, "error": repr(e)}), flush=True)
