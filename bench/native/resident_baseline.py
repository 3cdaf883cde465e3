"""CuPy baseline of bench/native/resident-bench.ts: C = A B, then D = C B, n x n, with the data on
the device between the two products ("device-resident") and with host arrays in and out of each
product ("host round trips"). Prints one JSON object on stdout.

  python3 bench/native/resident_baseline.py '{"runs": [{"dtype": "float32", "n": 8192, "reps": 2}]}'
"""
import json
import sys
import time

import numpy as np

spec = json.loads(sys.argv[1])
out = {"numpy": np.__version__, "results": []}
try:
    import cupy as cp

    out["cupy"] = cp.__version__
    for r in spec["runs"]:
        dt = np.float64 if r["dtype"] == "float64" else np.float32
        ha = np.random.default_rng(1).random((r["n"], r["n"])).astype(dt)
        hb = np.random.default_rng(2).random((r["n"], r["n"])).astype(dt)
        cp.matmul(cp.asarray(ha[:256, :256]), cp.asarray(hb[:256, :256]))  # warm-up: cuBLAS load
        cp.cuda.Device().synchronize()
        for impl in ("cupy (device-resident)", "cupy (host round trips)"):
            best = float("inf")
            for _ in range(r["reps"]):
                t = time.perf_counter()
                if impl.startswith("cupy (device"):
                    a, b = cp.asarray(ha), cp.asarray(hb)
                    d = cp.asnumpy(cp.matmul(cp.matmul(a, b), b))
                else:
                    c = cp.asnumpy(cp.matmul(cp.asarray(ha), cp.asarray(hb)))
                    d = cp.asnumpy(cp.matmul(cp.asarray(c), cp.asarray(hb)))
                best = min(best, time.perf_counter() - t)
                del d
            out["results"].append({"kind": "matmulChain", "impl": impl, "dtype": r["dtype"], "n": r["n"], "seconds": best})
            print(json.dumps(out["results"][-1]), file=sys.stderr, flush=True)
except Exception as e:  # no CuPy, no device: say why, keep the JSON shape
    out["error"] = f"{type(e).__name__}: {e}"
print(json.dumps(out))
