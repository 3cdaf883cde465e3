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

from .warm import PRELOAD as WARM_PRELOAD


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


def pinned(gpus: Sequence[str], i: int, env: Optional[Dict[str, str]] = None) -> str:
    """Worker i's CUDA_VISIBLE_DEVICES: its GPU first, then the others in order (dask-cuda's
    rule), or with GPUFLOW_DASK_PIN=own its GPU alone. gpuflow's workers use only their first
    device (chunks move between workers through Dask, not GPU peer copies), and a process that
    sees one GPU initialises the driver for that one only, where each of four workers seeing
    all four opens every device. On the four-GPU machine the four workers' contexts, created at
    once, took 1.1-1.6 s; whether pinning each to its GPU alone shortens that is what
    bench/dask/device.sh's `ownpin` variant measures (no GPU here)."""
    e = os.environ if env is None else env
    given = e.get("GPUFLOW_DASK_PIN", "rotate")
    if given not in ("rotate", "own"):
        raise ValueError(f"GPUFLOW_DASK_PIN must be 'rotate' (each worker sees every GPU, its own first) or 'own' (its GPU alone), got {given!r}")
    return gpus[i] if given == "own" else ",".join([*gpus[i:], *gpus[:i]])


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
                # The CUDA library, context and program kernel loaded as the worker starts (warm.py).
                "preload": WARM_PRELOAD,
            },
        }
        for i, g in enumerate(gpus)
    }


def scheduler_spec() -> Dict[str, Any]:
    from distributed import Scheduler

    return {"cls": Scheduler, "options": {"host": "127.0.0.1", "dashboard_address": "127.0.0.1:0"}}


def gpu_threads(env: Optional[Dict[str, str]] = None) -> int:
    """Threads of each GPU worker: GPUFLOW_DASK_GPU_THREADS when set, else 1 (dask-cuda's
    default). The addon's CUDA calls run on per-thread streams, so several threads are safe, but
    on the four-GPU machine they did not pay: the 2 TB seed graph took 1.31 s with 1 thread a
    GPU and 1.47 s with 8, whose batches of 8 chunk programs took 20-31 ms (median) against
    4.4-5.6 ms, the kernels of 8 threads sharing one GPU (bench/results/dask-gap-nvidia-h100-x4-*)."""
    e = os.environ if env is None else env
    given = e.get("GPUFLOW_DASK_GPU_THREADS")
    if not given:
        return 1
    try:
        n = int(given)
    except ValueError:
        raise ValueError(f"GPUFLOW_DASK_GPU_THREADS must be a whole number of threads, got {given!r}") from None
    if n < 1:
        raise ValueError(f"GPUFLOW_DASK_GPU_THREADS must be at least 1, got {n}")
    return n


def start_cuda_cluster(gpus: Sequence[str]) -> Any:
    """A SpecCluster of one pinned worker per GPU in `gpus` (gpu_threads threads each); memory
    split evenly between them."""
    from distributed import SpecCluster
    from distributed.system import MEMORY_LIMIT

    specs = worker_specs(gpus, threads=gpu_threads(), memory_limit=max(1, MEMORY_LIMIT // max(1, len(gpus))))
    return SpecCluster(workers=specs, scheduler=scheduler_spec(), name="gpuflow-local-cuda")
