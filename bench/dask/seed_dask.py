"""gpuflow on Dask, the seed workload (issue 15's GPU acceptance): the graph of seed_graph.py
(or a protocol graph file) run through gpuflow_dask's executor on
  --cluster local-cuda   what `gpuflow run --dask local-cuda` starts (gpuflow_dask.cluster.start):
                         dask-cuda's LocalCUDACluster where installed, else one Nanny per visible
                         GPU pinned with CUDA_VISIBLE_DEVICES (set it to measure fewer GPUs)
  --cluster local:N      distributed.LocalCluster, N single-threaded worker processes
  --cluster threaded     dask's threaded scheduler (no distributed at all)
One warm-up at a small size, then the timed run; one JSON line per measurement on stdout.

  PYTHONPATH=<repo>/python:<dask wheels> python3 bench/dask/seed_dask.py --n 500000 --chunk 10000 --cluster local-cuda
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Dict, List, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from seed_graph import graph  # noqa: E402

from gpuflow_dask.batch import plan  # noqa: E402
from gpuflow_dask.messages import parse  # noqa: E402
from gpuflow_dask.runs import dask_graph as protocol_graph  # noqa: E402


def dask_graph(g: Dict[str, Any]) -> Tuple[Dict[str, Any], List[str]]:
    """The Dask graph the bridge would submit (batched unless GPUFLOW_DASK_BATCH=0) and its output
    keys, under a fresh key prefix as the bridge's: the warm-up graph's keys are the timed one's
    ('total/sum-combine0(0)' is the warm-up's finalized total), and a scheduler that has not yet
    forgotten them would hand the timed run the warm-up's values."""
    sub = parse(json.dumps({"type": "submit", "id": "b", "graph": g}))
    prefix = f"seed-{uuid.uuid4().hex[:12]}:"
    return protocol_graph(sub, prefix, plan(sub.tasks, sub.outputs)), [prefix + o for o in sub.outputs]


def task_stream_summary(records: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Per worker: Dask tasks, compute seconds summed over threads, and the union of the compute
    spans (seconds a worker had any task computing); the first start to the last stop overall."""
    spans: Dict[str, List[Tuple[float, float]]] = {}
    for r in records:
        for ss in r.get("startstops", []):
            if ss.get("action") == "compute":
                spans.setdefault(str(r.get("worker")), []).append((float(ss["start"]), float(ss["stop"])))
    out: Dict[str, Any] = {}
    lo, hi = float("inf"), float("-inf")
    for w, sp in sorted(spans.items()):
        sp.sort()
        union, cur_s, cur_e = 0.0, sp[0][0], sp[0][1]
        for a, b in sp[1:]:
            if a > cur_e:
                union += cur_e - cur_s
                cur_s, cur_e = a, b
            else:
                cur_e = max(cur_e, b)
        union += cur_e - cur_s
        lo, hi = min(lo, sp[0][0]), max(hi, max(b for _, b in sp))
        durs = sorted(b - a for a, b in sp)
        out[w] = {"tasks": len(sp), "computeSum": round(sum(durs), 4), "computeUnion": round(union, 4), "medianTaskMs": round(1000 * durs[len(durs) // 2], 3)}
    return {"workers": out, "firstToLast": round(hi - lo, 4) if out else None}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=500000)
    ap.add_argument("--chunk", type=int, default=10000)
    ap.add_argument("--cluster", default="local-cuda")
    ap.add_argument("--threads", type=int, default=1, help="threads per worker of a local:N cluster (a GPU worker overlaps its kernels with several)")
    ap.add_argument("--graph", help="a protocol graph JSON ({tasks, outputs}) instead of seed_graph's")
    a = ap.parse_args()
    os.environ.setdefault("DASK_DISTRIBUTED__DIAGNOSTICS__NVML", "False")
    g = json.loads(Path(a.graph).read_text()) if a.graph else graph(a.n, a.chunk)
    warm = graph(2 * a.chunk, a.chunk)
    client = cluster = None
    if a.cluster == "threaded":
        import dask.threaded

        def get(gr: Dict[str, Any]) -> Any:
            return dask.threaded.get(*dask_graph(gr))
    else:
        from distributed import Client, LocalCluster

        if a.cluster == "local-cuda":
            from gpuflow_dask.cluster import start

            client, cluster = start("local-cuda", 60)
        else:
            cluster = LocalCluster(n_workers=int(a.cluster.split(":")[1]), threads_per_worker=a.threads, host="127.0.0.1", dashboard_address="127.0.0.1:0")
            client = Client(cluster)

        def get(gr: Dict[str, Any]) -> Any:
            return client.get(*dask_graph(gr))

    import dask

    from gpuflow_dask import capi

    get(warm)
    stream: Dict[str, Any] = {}
    t = time.perf_counter()
    if client is not None:
        # Where the wall goes: each worker's compute time from Dask's task stream (the union of
        # its threads' compute spans over the wall, and their sum), and the Dask tasks' sizes.
        from distributed import get_task_stream

        with get_task_stream(client=client) as ts:
            value = get(g)
        s = time.perf_counter() - t
        stream = task_stream_summary(ts.data)
    else:
        value = get(g)
        s = time.perf_counter() - t
    import numpy as np

    info = client.scheduler_info()["workers"] if client is not None else {}
    print(json.dumps({"impl": "gpuflow-dask", "batch": os.environ.get("GPUFLOW_DASK_BATCH") != "0", "cluster": a.cluster, "workers": len(info), "visible": os.environ.get("CUDA_VISIBLE_DEVICES"),
                      "threads": sorted({int(w.get("nthreads", 0)) for w in info.values()}) or a.threads, "n": a.n, "chunk": a.chunk, "tasks": len(g["tasks"]), "seconds": s, "stream": stream,
                      "value": float(np.asarray(value[0]).ravel()[0]), "dask": dask.__version__, "cuda_lib": capi.cuda_why(), "cpu_lib": capi.why()}), flush=True)
    if client is not None:
        client.close()
        cluster.close()


if __name__ == "__main__":
    main()
