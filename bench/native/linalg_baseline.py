"""CuPy side of bench/native/linalg-bench.ts, timed the same ways in a fresh process: the first SVD
of the process (cold: cuSOLVER load and handle), then warm SVDs (best of 3) with the matrix on the
device and with host arrays in and out; matmul n x n with the operands on the device, each call
synchronised (best and median of 5), and one host in / out. Prints one JSON object on stdout.

  python3 bench/native/linalg_baseline.py '{"n": 16384, "m": 10000, "k": 1000}'
"""
import json
import os
import sys
import time

import numpy as np

spec = json.loads(sys.argv[1])
out = {"numpy": np.__version__, "results": [], "CUPY_TF32": os.environ.get("CUPY_TF32", "unset (off)")}


def record(**kw):
    out["results"].append(kw)
    print(json.dumps(kw), file=sys.stderr, flush=True)


def timed(f):
    t = time.perf_counter()
    f()
    cp.cuda.Device().synchronize()
    return time.perf_counter() - t


try:
    import cupy as cp

    out["cupy"] = cp.__version__
    m, k = spec["m"], spec["k"]
    a = cp.random.default_rng(3).random((m, k), dtype=cp.float64)
    cp.cuda.Device().synchronize()
    svd = lambda: cp.linalg.svd(a, full_matrices=False)  # noqa: E731
    record(kind="svd", impl="cupy (cold: first call in the process, device-resident)", dtype="float64", m=m, n=k, seconds=timed(svd))
    record(kind="svd", impl="cupy (device-resident)", dtype="float64", m=m, n=k, seconds=min(timed(svd) for _ in range(3)))
    ha = cp.asnumpy(a)
    host = lambda: [cp.asnumpy(x) for x in cp.linalg.svd(cp.asarray(ha), full_matrices=False)]  # noqa: E731
    record(kind="svd", impl="cupy (host in/out)", dtype="float64", m=m, n=k, seconds=min(timed(host) for _ in range(3)))
    del a

    n = spec["n"]
    for name, dt in (("float32", cp.float32), ("float64", cp.float64)):
        x = cp.random.default_rng(1).random((n, n), dtype=dt)
        y = cp.random.default_rng(2).random((n, n), dtype=dt)
        first = timed(lambda: cp.matmul(x, y))
        times = sorted(timed(lambda: cp.matmul(x, y)) for _ in range(5))
        record(kind="matmul", impl="cupy (device-resident)", dtype=name, n=n, seconds=times[0], median=times[2], firstCall=first, tflops=2 * n**3 / times[0] / 1e12)
        hx, hy = cp.asnumpy(x), cp.asnumpy(y)
        del x, y
        cp.get_default_memory_pool().free_all_blocks()
        record(kind="matmul", impl="cupy (host in/out)", dtype=name, n=n, seconds=timed(lambda: cp.asnumpy(cp.matmul(cp.asarray(hx), cp.asarray(hy)))))
        cp.get_default_memory_pool().free_all_blocks()
except Exception as e:  # no CuPy, no device: say why, keep the JSON shape
    out["error"] = f"{type(e).__name__}: {e}"
print(json.dumps(out))
