"""Whether the clusters we start fork their workers from multiprocessing's forkserver, and that
forkserver started as the bridge starts.

distributed forks a Nanny's worker from the forkserver when its `multiprocessing-method` is
`forkserver` (2022.12 and 2026.x). Left to itself, distributed starts the forkserver at the first
worker's start, after the bridge imported distributed, and first imports the forkserver's preload
(numpy, pandas, lz4) in the bridge as well: on the four-GPU machine the workers' processes began
1.9 s after the scheduler. Started here, the forkserver imports distributed, NumPy and pandas
beside the bridge's own imports, and each worker is a fork of a process that has them: no worker
imports anything before its CUDA context (warm.py), which it creates as soon as its Nanny's env
has pinned CUDA_VISIBLE_DEVICES. The forkserver itself never touches CUDA.
"""
from __future__ import annotations

import logging
import os
from typing import Dict, Optional

from . import trace

log = logging.getLogger("gpuflow_dask")

# What the forkserver imports before it forks anything: distributed's own preload list
# (distributed.utils.get_mp_context: distributed, its required packages, numpy, pandas, lz4) and
# the modules a worker's warm-up and first task import (warm.py). Absent ones are skipped by
# multiprocessing. Nothing here creates a CUDA context (capi loads its libraries lazily).
PRELOAD = [
    "distributed",
    "dask",
    "msgpack",
    "cloudpickle",
    "tornado",
    "toolz",
    "numpy",
    "pandas",
    "lz4",
    "gpuflow_dask.warm",
    "gpuflow_dask.execute",
    "gpuflow_dask.program",
]


# distributed's default `distributed.nanny.pre-spawn-environ` (2022.12 to 2026.x): each Nanny
# sets it in this process before it starts its worker, where a variable is not set already.
# glibc's malloc and the BLAS read it only as a process starts, and every forked worker inherits
# the forkserver's NumPy, so the forkserver started early has to start with it (left to
# distributed, it starts after the first Nanny set it). A value given in dask's configuration
# instead of the environment is not seen here.
PRE_SPAWN_ENV = {"MALLOC_TRIM_THRESHOLD_": "65536", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


def pays(workers: int, cores: int, env: Optional[Dict[str, str]] = None, gpus: bool = False) -> bool:
    """Whether a cluster we start forks its workers from the forkserver rather than spawning each
    (which imports distributed, NumPy and pandas itself).

    GPU workers (local-cuda): always. On the four-GPU machine (09:03, no bytecode yet) it was the
    better start in both sizes, 5.67 s of wall against 5.84 s on 4 GPUs and 5.28 against 5.96 s
    on 1, and its cluster was killed in 18 ms against 0.39 s. CPU workers (local:N): where the
    workers and the bridge outnumber the cores, so their imports would compete. Measured on 2
    cores (docs/dask.md, the phase trace): `local:2` 2.94 s with it against 3.46 s spawned,
    `local:1` 2.39 s against 2.30 s. GPUFLOW_DASK_FORKSERVER=1 / 0 decides instead."""
    e = os.environ if env is None else env
    given = e.get("GPUFLOW_DASK_FORKSERVER")
    if given in ("0", "1"):
        return given == "1"
    return gpus or workers + 1 > cores


def target_pays(target: str) -> bool:
    """pays() for a local target of the connect message (`local:N` or `local-cuda`)."""
    if target == "local-cuda":
        import importlib.util

        # dask-cuda's LocalCUDACluster, where installed, starts its workers its own way.
        return importlib.util.find_spec("dask_cuda") is None and pays(0, os.cpu_count() or 1, gpus=True)
    if target.startswith("local:"):
        return pays(int(target.split(":", 1)[1]), os.cpu_count() or 1)
    return False


def start_early(target: str) -> bool:
    """Starts the forkserver with PRELOAD now when `target`'s cluster will use it; True if so.
    Only asks multiprocessing to start it (a process spawn): the preload's imports run in it."""
    if not target_pays(target):
        return False
    import multiprocessing
    from multiprocessing import forkserver

    for k, v in PRE_SPAWN_ENV.items():
        os.environ.setdefault(k, v)
    multiprocessing.get_context("forkserver").set_forkserver_preload(PRELOAD)
    forkserver.ensure_running()
    trace.trace("forkserver-started")
    return True


def use(target: str) -> None:
    """Sets distributed's multiprocessing method for the cluster about to start (target_pays).
    Where start_early ran, distributed is told its forkserver preload is set, so it neither
    imports its own list in the bridge first nor replaces ours. Set either way: serve may start
    a local:N cluster after a local-cuda one in the same bridge."""
    import dask

    if not target_pays(target):
        dask.config.set({"distributed.worker.multiprocessing-method": "spawn"})  # distributed's default
        return
    dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"})
    from multiprocessing import forkserver

    if getattr(getattr(forkserver, "_forkserver", None), "_forkserver_pid", None) is None:
        return
    import distributed.utils

    # distributed 2022.12 to 2026.x keep this flag; a release without it just imports its list.
    if hasattr(distributed.utils, "_forkserver_preload_set"):
        distributed.utils._forkserver_preload_set = True
