"""Dask + CuPy on the linear-algebra workloads of bench/native/linalg-device.sh, in the same call as
gpuflow's engine and bare kernels: generated inputs on the GPU (CuPy's default generator through
dask.array), Dask's default threaded scheduler, the answer brought back as gpuflow's engine runs
bring theirs.

  svd     x = random((10000, 1000)) float64 in row blocks of 1000 -> da.linalg.svd (TSQR) -> s
  matmul  a, b = random((16384, 16384)) float32 in blocks of 8192 -> (a @ b).sum()

One JSON line per measurement (warm-up run first, then best of --reps).

    python3 bench/native/linalg_dask_cupy.py [--reps 2]
"""
import argparse
import json
import time

try:
    import dask
    import dask.array as da
except Exception as e:  # noqa: BLE001
    print(json.dumps({"impl": "dask+cupy", "error": f"dask not importable: {e}"}), flush=True)
    raise SystemExit(0)
import cupy as cp


def svd(rows, cols, block):
    rng = da.random.default_rng(cp.random.default_rng(7))
    x = rng.random((rows, cols), chunks=(block, cols), dtype=cp.float64)
    _, s, _ = da.linalg.svd(x)
    return s


def matmul(n, block):
    rng = da.random.default_rng(cp.random.default_rng(7))
    a = rng.random((n, n), chunks=(block, block), dtype=cp.float32)
    b = rng.random((n, n), chunks=(block, block), dtype=cp.float32)
    return (a @ b).sum(dtype=cp.float64)


def timed(make, reps):
    make().compute()  # warm-up: kernels, cuSOLVER / cuBLAS handles, the pool
    cp.cuda.Device().synchronize()
    best = None
    for _ in range(reps):
        t = time.perf_counter()
        make().compute()
        cp.cuda.Device().synchronize()
        s = time.perf_counter() - t
        best = s if best is None else min(best, s)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=2)
    a = ap.parse_args()
    cases = [
        ("svd", {"rows": 10000, "cols": 1000, "block": 1000, "dtype": "float64"}, lambda: svd(10000, 1000, 1000)),
        ("matmul", {"n": 16384, "block": 8192, "dtype": "float32"}, lambda: matmul(16384, 8192)),
    ]
    for name, spec, make in cases:
        try:
            s = timed(make, a.reps)
            print(json.dumps({"kind": name, "impl": "dask+cupy (threaded scheduler)", **spec, "seconds": s, "dask": dask.__version__, "cupy": cp.__version__}), flush=True)
        except Exception as e:  # noqa: BLE001
            print(json.dumps({"kind": name, "impl": "dask+cupy", **spec, "error": repr(e)[:400]}), flush=True)


if __name__ == "__main__":
    main()
