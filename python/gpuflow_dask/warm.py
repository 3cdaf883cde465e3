"""A worker's warm-up, begun as the worker starts: what its first task would otherwise pay inside
the run (on the four-GPU machine each worker was busy ~0.45 s of a 0.9 s engine run).

In a background thread: the task modules (NumPy, the program and combine code), the C-ABI
library, the CUDA library and its device (capi.load_cuda), one one-element chunk program through
the path the seed's programs take (on a GPU worker: the CUDA context, the program kernel's module,
the first device buffers), and CuPy with one allocation where chunks stay on the device
(device.py; on the four-GPU machine CuPy's import took 0.17-0.22 s of each worker's first task
that used it, inside the engine run), its import in a thread of its own beside the CUDA context. A task that
arrives meanwhile waits for a load in progress (capi's and device's locks), never sees it half
done. Nothing here changes a result: every load is the one the task would make.

Started by the workers of the clusters gpuflow starts (their `preload`, cluster.py and
cuda_cluster.py: `dask_setup` runs as the worker starts, before it registers) and by the package
plugin on any other worker (remote.py). GPUFLOW_DASK_WARM=0 turns it off.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any, Optional

log = logging.getLogger("gpuflow_dask")
# The `preload` of the workers of the clusters gpuflow starts (cluster.py, cuda_cluster.py): this
# module, whose dask_setup below starts the warm-up as each worker starts.
PRELOAD = [__name__]

_started: Optional[threading.Thread] = None
_lock = threading.Lock()

# The seed's chunk program, one element: a normal draw, + 1, summed (bench/dask/seed_graph.py).
_TINY = {
    "kind": "program",
    "program": {
        "dtype": "float64",
        "shape": [1, 1],
        "expr": {
            "kind": "binary",
            "op": "add",
            "a": {"kind": "leaf", "leaf": {"kind": "random", "dist": "normal", "seed": 0, "a": 10, "b": 1, "shape": [1, 1], "region": {"start": [0, 0], "step": [1, 1], "count": [1, 1]}}},
            "b": {"kind": "leaf", "leaf": {"kind": "fill", "value": 1}},
        },
        "reduce": {"op": "sum", "axis": None},
    },
}


def warm(name: str = "") -> str:
    """Loads what a first task needs; returns the backend the tiny program ran on."""
    from . import capi, device, execute, program  # noqa: F401 - execute: the task modules

    if _cupy_may_help():
        # CuPy's import (0.17-0.22 s of Python on the four-GPU machine) beside the CUDA context
        # below (driver time, the GIL released), not after it; device's lock makes the
        # allocation below (or a first task) wait for it.
        threading.Thread(target=device.cupy, name="gpuflow-warm-cupy", daemon=True).start()
    lib = capi.load()
    gpu = capi.load_cuda() if lib is not None else None
    _, backend = program.run(_TINY, [])
    if gpu is not None and capi.takes_device_inputs(gpu):
        cp = device.cupy()
        if cp is not None:
            # One CuPy allocation: its memory pool on this worker's device (the context is the
            # one the program above made: CuPy and the library share the primary context).
            cp.empty(1, dtype=cp.float64)
            cp.cuda.get_current_stream().synchronize()
    from . import trace

    trace.at(f"{name or os.getpid()}-warm-done", time.time(), who="worker")
    return backend


def _cupy_may_help() -> bool:
    """Whether CuPy may hold this worker's chunks: a CUDA library file, CuPy installed (looked
    for, not imported) and the device not turned off. The allocation below still asks for the
    library's device entry."""
    import importlib.util

    from . import capi

    return os.environ.get("GPUFLOW_DASK_DEVICE") != "cpu" and capi.cuda_library_file() and importlib.util.find_spec("cupy") is not None


def start(name: str = "") -> None:
    """Starts the warm-up once per process (a daemon thread)."""
    global _started
    if os.environ.get("GPUFLOW_DASK_WARM") == "0":
        return
    with _lock:
        if _started is not None:
            return

        def go() -> None:
            try:
                warm(name)
            except Exception as e:  # noqa: BLE001 - the first task meets the same failure and reports it
                log.warning("gpuflow_dask warm-up: %s: %s", type(e).__name__, e)

        _started = threading.Thread(target=go, name="gpuflow-warm", daemon=True)
        _started.start()


def dask_setup(worker: Any) -> None:
    """distributed's preload hook: runs in the worker process as it starts."""
    name = getattr(worker, "name", None)  # LocalCluster's names are 0, 1, ...
    start("" if name is None else str(name))
