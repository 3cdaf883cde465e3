"""`local-cuda` without dask-cuda: one worker process per visible GPU, each pinned to its GPU
through CUDA_VISIBLE_DEVICES, as dask-cuda's LocalCUDACluster does (its GPU first, the others
after, so device 0 in the worker is its own GPU). A distributed.SpecCluster of Nannies whose
`env` carries the pin (Nanny(env=) in 2022.12 and 2026.x); everything on 127.0.0.1.

The GPU list is CUDA_VISIBLE_DEVICES when set (as dask-cuda reads it), else the indices
nvidia-smi lists; the spec is built from that list alone, so it is tested on a machine without
GPUs with a list given by hand.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from typing import Any, Dict, List, Optional, Sequence


def visible_gpus(env: Optional[Dict[str, str]] = None, nvidia_smi: Optional[str] = None) -> List[str]:
    """The GPUs local-cuda may use, as CUDA_VISIBLE_DEVICES entries (indices or UUIDs)."""
    e = os.environ if env is None else env
    listed = e.get("CUDA_VISIBLE_DEVICES")
    if listed is not None:
        return [g.strip() for g in listed.split(",") if g.strip() and g.strip() != "-1"]
    smi = nvidia_smi or shutil.which("nvidia-smi")
    if not smi:
        return []
    try:
        out = subprocess.run([smi, "--query-gpu=index", "--format=csv,noheader"], capture_output=True, text=True, timeout=20, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [line.strip() for line in out.splitlines() if line.strip().isdigit()]


def pinned(gpus: Sequence[str], i: int) -> str:
    """Worker i's CUDA_VISIBLE_DEVICES: its GPU first, then the others in order (dask-cuda's rule)."""
    return ",".join([*gpus[i:], *gpus[:i]])


def worker_specs(gpus: Sequence[str], threads: int = 1, memory_limit: Any = "auto") -> Dict[str, Dict[str, Any]]:
    """The SpecCluster worker specs: one Nanny per GPU, named by its GPU, pinned with env."""
    from distributed import Nanny

    return {
        f"gpu-{g}": {
            "cls": Nanny,
            "options": {
                "env": {"CUDA_VISIBLE_DEVICES": pinned(gpus, i)},
                "nthreads": threads,
                "name": f"gpu-{g}",
                "host": "127.0.0.1",
                "dashboard_address": "127.0.0.1:0",
                "memory_limit": memory_limit,
                "resources": {"GPU": 1},
            },
        }
        for i, g in enumerate(gpus)
    }


def scheduler_spec() -> Dict[str, Any]:
    from distributed import Scheduler

    return {"cls": Scheduler, "options": {"host": "127.0.0.1", "dashboard_address": "127.0.0.1:0"}}


MAX_GPU_THREADS = 8


def gpu_threads(gpus: int, cores: Optional[int] = None, env: Optional[Dict[str, str]] = None) -> int:
    """Threads of each GPU worker: GPUFLOW_DASK_GPU_THREADS when set, else the cores shared
    between the GPUs, at most 8. Several threads let one task's Python (decoding, ctypes, Dask's
    bookkeeping) overlap another's kernel: the addon's CUDA calls run on per-thread streams
    (cudaStreamPerThread), so threads never share one. On one H100 the 2 TB seed took 1.74-1.93 s
    with 1 thread, 1.49-1.62 s with 4 and 1.42-1.52 s with 8 (bench/results/dask-gpu-h100-575d1c3.jsonl)."""
    e = os.environ if env is None else env
    given = e.get("GPUFLOW_DASK_GPU_THREADS")
    if given:
        try:
            n = int(given)
        except ValueError:
            raise ValueError(f"GPUFLOW_DASK_GPU_THREADS must be a whole number of threads, got {given!r}") from None
        if n < 1:
            raise ValueError(f"GPUFLOW_DASK_GPU_THREADS must be at least 1, got {n}")
        return n
    c = (os.cpu_count() or 1) if cores is None else cores
    return max(1, min(MAX_GPU_THREADS, c // max(1, gpus)))


def start_cuda_cluster(gpus: Sequence[str]) -> Any:
    """A SpecCluster of one pinned worker per GPU in `gpus` (gpu_threads threads each); memory
    split evenly between them."""
    from distributed import SpecCluster
    from distributed.system import MEMORY_LIMIT

    specs = worker_specs(gpus, threads=gpu_threads(len(gpus)), memory_limit=max(1, MEMORY_LIMIT // max(1, len(gpus))))
    return SpecCluster(workers=specs, scheduler=scheduler_spec(), name="gpuflow-local-cuda")
