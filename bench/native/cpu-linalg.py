"""NumPy side of bench/native/cpu-linalg.ts, in a child process it starts (OPENBLAS_NUM_THREADS set to
the same thread count): matmul n x n, numpy.linalg.svd (gesdd, full_matrices=False) and
numpy.linalg.qr of the very inputs gpuflow got (.npy files), best of `reps` after one warm-up call.
Also the system BLAS gpuflow dlopens, called through ctypes (cblas_?gemm into a fresh np.empty
output), which separates the library's speed from the binding's. Prints one JSON object on stdout.

  python3 bench/native/cpu-linalg.py '{"threads": 2, "matmul": [...], "svd": [...], "qr": [...], "blas": "libopenblas.so.0"}'
"""
import ctypes
import glob
import json
import os
import sys
import time

import numpy as np

spec = json.loads(sys.argv[1])
threads = spec["threads"]
out = {"numpy": np.__version__, "results": []}


def record(**kw):
    out["results"].append(kw)
    print(json.dumps(kw), file=sys.stderr, flush=True)


def best(f, reps):
    f()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


# The OpenBLAS numpy bundles (scipy-openblas: symbols prefixed scipy_, suffixed 64_): its version
# and the kernel set it picked for this CPU.
try:
    cfg = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
    out["numpyBlas"] = f"{cfg.get('name')} {cfg.get('version')}"
    libs = glob.glob(os.path.join(os.path.dirname(np.__file__), "..", "numpy.libs", "libscipy_openblas*.so*"))
    if libs:
        lib = ctypes.CDLL(libs[0])
        for suffix in ("64_", ""):
            f = getattr(lib, f"scipy_openblas_get_corename{suffix}", None)
            if f:
                f.restype = ctypes.c_char_p
                out["numpyBlasCore"] = f().decode()
                break
except Exception as e:  # noqa: BLE001 - informative only
    out["numpyBlasError"] = str(e)

sysblas = None
if spec.get("blas"):
    try:
        sysblas = ctypes.CDLL(spec["blas"])
        if hasattr(sysblas, "openblas_set_num_threads"):
            sysblas.openblas_set_num_threads(threads)
    except OSError as e:
        out["systemBlasError"] = str(e)

for m in spec["matmul"]:
    n, reps = m["n"], m["reps"]
    dt = np.float64 if m["dtype"] == "float64" else np.float32
    a = np.random.default_rng(1).random((n, n)).astype(dt)
    b = np.random.default_rng(2).random((n, n)).astype(dt)
    record(op="matmul", impl="numpy", dtype=m["dtype"], shape=[n, n], threads=threads, seconds=best(lambda: a @ b, reps))
    if sysblas is not None:
        fn, ct = (sysblas.cblas_dgemm, ctypes.c_double) if dt == np.float64 else (sysblas.cblas_sgemm, ctypes.c_float)
        P = ctypes.c_void_p

        def gemm():
            c = np.empty((n, n), dt)
            fn(101, 111, 111, n, n, n, ct(1.0), P(a.ctypes.data), n, P(b.ctypes.data), n, ct(0.0), P(c.ctypes.data), n)

        record(op="matmul", impl=f"{spec['blas']} via ctypes", dtype=m["dtype"], shape=[n, n], threads=threads, seconds=best(gemm, reps))

for s in spec["svd"]:
    a = np.load(s["file"])
    record(op="svd", impl="numpy", dtype=str(a.dtype), shape=list(a.shape), threads=threads,
           seconds=best(lambda: np.linalg.svd(a, full_matrices=False), s["reps"]))

for q in spec["qr"]:
    a = np.load(q["file"])
    record(op="qr", impl="numpy", dtype=str(a.dtype), shape=list(a.shape), threads=threads,
           seconds=best(lambda: np.linalg.qr(a), q["reps"]))

print(json.dumps(out))
