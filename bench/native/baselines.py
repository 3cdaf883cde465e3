"""Baselines for bench/native/device-run.ts, on the same machine in the same run: a CuPy loop over
the same chunks as gpuflow's cuda kernels, NumPy (16 threads over chunks) for native-cpu, and
cuBLAS / cuSOLVER through CuPy, NumPy's BLAS / LAPACK. Prints one JSON object on stdout.

  python3 bench/native/baselines.py '{"seed": [...], "cpuSeed": [...], ...}'
"""
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

spec = json.loads(sys.argv[1])
out = {"numpy": np.__version__, "results": []}


def record(**kw):
    out["results"].append(kw)
    print(json.dumps(kw), file=sys.stderr, flush=True)


try:
    import cupy as cp
    out["cupy"] = cp.__version__

    def cupy_seed(n, chunk, dtype, sliced, add_one):
        total = cp.zeros((), dtype=cp.float64)
        gen = cp.random.default_rng(1234)  # CuPy's default generator (XORWOW through cuRAND)
        k = n // chunk
        for _ in range(k * k):
            x = gen.standard_normal((chunk, chunk), dtype=dtype) + 10  # normal(10, 1)
            if add_one:
                x = x + 1
            if sliced:
                x = x[::2, ::2]
            total += x.sum(dtype=cp.float64)
        return float(total)

    for s in spec["seed"]:
        dt = cp.float64 if s["dtype"] == "float64" else cp.float32
        cupy_seed(s["chunk"] * 2, s["chunk"], dt, s["sliced"], s["addOne"])  # warm-up
        cp.cuda.Device().synchronize()
        t = time.perf_counter()
        v = cupy_seed(s["n"], s["chunk"], dt, s["sliced"], s["addOne"])
        cp.cuda.Device().synchronize()
        record(kind="seed", impl="cupy", **s, seconds=time.perf_counter() - t, value=v)

    for m in spec["matmul"]:
        dt = cp.float64 if m["dtype"] == "float64" else cp.float32
        a = cp.random.default_rng(1).random((m["n"], m["n"]), dtype=dt)
        b = cp.random.default_rng(2).random((m["n"], m["n"]), dtype=dt)
        cp.matmul(a, b)
        cp.cuda.Device().synchronize()
        t = time.perf_counter()
        for _ in range(m["reps"]):
            c = cp.matmul(a, b)
        cp.cuda.Device().synchronize()
        record(kind="matmul", impl="cupy (device-resident)", **m, seconds=(time.perf_counter() - t) / m["reps"])
        ha, hb = cp.asnumpy(a), cp.asnumpy(b)
        t = time.perf_counter()
        c = cp.asnumpy(cp.matmul(cp.asarray(ha), cp.asarray(hb)))
        record(kind="matmul", impl="cupy (host in/out)", **m, seconds=time.perf_counter() - t)
        del a, b, c

    for s in spec["svd"]:
        dt = cp.float64 if s["dtype"] == "float64" else cp.float32
        a = cp.random.default_rng(3).random((s["m"], s["n"]), dtype=dt)
        t = time.perf_counter()
        cp.linalg.svd(a, full_matrices=False)
        cp.cuda.Device().synchronize()
        record(kind="svd", impl="cupy (cold)", **s, seconds=time.perf_counter() - t)
        t = time.perf_counter()
        cp.linalg.svd(a, full_matrices=False)
        cp.cuda.Device().synchronize()
        record(kind="svd", impl="cupy (device-resident)", **s, seconds=time.perf_counter() - t)
except ImportError as e:
    out["cupyError"] = str(e)


def numpy_seed(n, chunk, dtype, sliced, threads):
    k = n // chunk

    def one(i):
        g = np.random.Generator(np.random.Philox(1234 + i))
        x = g.standard_normal((chunk, chunk), dtype=dtype) + 10 + 1
        return float((x[::2, ::2] if sliced else x).sum(dtype=np.float64))

    with ThreadPoolExecutor(threads) as ex:
        return sum(ex.map(one, range(k * k)))


for s in spec["cpuSeed"]:
    dt = np.float64 if s["dtype"] == "float64" else np.float32
    t = time.perf_counter()
    v = numpy_seed(s["n"], s["chunk"], dt, s["sliced"], s["threads"])
    record(kind="cpuSeed", impl=f"numpy ({s['threads']} threads over chunks)", **s, seconds=time.perf_counter() - t, value=v)

for m in spec["cpuMatmul"]:
    dt = np.float64 if m["dtype"] == "float64" else np.float32
    a = np.random.default_rng(1).random((m["n"], m["n"])).astype(dt)
    b = np.random.default_rng(2).random((m["n"], m["n"])).astype(dt)
    a @ b
    t = time.perf_counter()
    a @ b
    record(kind="cpuMatmul", impl="numpy", **m, seconds=time.perf_counter() - t)

for s in spec["cpuSvd"]:
    a = np.random.default_rng(3).random((s["m"], s["n"]))
    t = time.perf_counter()
    np.linalg.svd(a, full_matrices=False)
    record(kind="cpuSvd", impl="numpy", **s, seconds=time.perf_counter() - t)

print(json.dumps(out))
