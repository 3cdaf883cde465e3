"""What each worker of a gpuflow-started cluster can run (the device machine's first check):
`--cluster local-cuda` (or local:N) started as `gpuflow run --dask` starts it, then on every
worker gpuflow_dask's probe (does the C library load, the CUDA one, CuPy; CUDA_VISIBLE_DEVICES;
why not) and one chunk program of the seed (normal(10, 1) + 1 summed over a chunk x chunk block)
timed there, with the backend it ran on. One JSON line per worker on stdout.

  PYTHONPATH=<repo>/python python3 bench/dask/probe_workers.py --cluster local-cuda --chunk 10000
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Dict

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from seed_graph import chunk_program  # noqa: E402


def timed_program(prog: Dict[str, Any], reps: int) -> Dict[str, Any]:
    """Runs `prog` `reps` times on this worker: seconds of each run and the backend."""
    from gpuflow_dask import program

    spec = {"kind": "program", "program": prog}
    times, backend, value = [], "", None
    for _ in range(reps):
        t = time.perf_counter()
        value, backend = program.run(spec, [])
        times.append(round(time.perf_counter() - t, 4))
    return {"backend": backend, "seconds": times, "sum": float(value.fields["sum"].ravel()[0])}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cluster", default="local-cuda")
    ap.add_argument("--chunk", type=int, default=10000)
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    from gpuflow_dask.cluster import probe_all, start

    t0 = time.perf_counter()
    client, cluster = start(a.cluster, 60)
    started = time.perf_counter() - t0
    try:
        probes = probe_all(client)
        prog = chunk_program(2 * a.chunk, a.chunk, 0, 0)
        for addr in sorted(probes):
            fut = client.submit(timed_program, prog, a.reps, workers=[addr], pure=False)
            try:
                run = fut.result(timeout=120)
            except Exception as e:  # noqa: BLE001 - reported, the other workers still probed
                run = {"error": f"{type(e).__name__}: {e}"}
            print(json.dumps({"kind": "probe", "cluster": a.cluster, "worker": addr, "startSeconds": round(started, 2), "probe": probes[addr], "chunk": a.chunk, "program": run}), flush=True)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


if __name__ == "__main__":
    main()
