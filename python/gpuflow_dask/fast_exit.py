"""The end of a bridge whose gpuflow process exits next (`shutdown` with `fast`: `gpuflow run`):
the cluster the bridge started is killed, not closed (docs/dask.md, Protocol). Without `fast`
(serve, a cluster switch) bridge.py closes it gracefully.
"""
from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from typing import Any, List

from . import trace

log = logging.getLogger("gpuflow_dask")


def close_fast(bridge: Any) -> None:
    """Ends a cluster this bridge started at once: its event loop is held (no nanny restarts a
    worker it sees die), every process under the bridge but multiprocessing's resource tracker
    (which unlinks the nannies' semaphores once we are gone) is killed and reaped, and the
    workers' directories are removed; the scheduler and the nannies live in this process, which
    exits next. A Nanny's graceful close took ~0.3 s of a 2-core machine's `gpuflow run` and the
    interpreter's exit ~0.2 s more (docs/dask.md, the phase trace), for a cluster nobody uses
    after the run. A scheduler we did not start is left as it was: only our client closes."""
    import shutil

    started = bridge.prestart.box.get("value", (None, None))[1] if bridge.prestart is not None else None
    clusters = [c for c in (bridge.cluster, started) if c is not None]
    if not clusters:
        bridge.close()
        return
    import psutil
    from multiprocessing import resource_tracker

    for c in clusters:
        _hold_loop(c)
    tracker = getattr(getattr(resource_tracker, "_resource_tracker", None), "_pid", None)
    procs = [p for p in psutil.Process().children(recursive=True) if p.pid != tracker]
    for p in procs:
        with contextlib.suppress(psutil.Error):
            p.kill()
    _wait_dead(procs)
    for p in bridge.probes.values():
        d = p.get("dir") if isinstance(p, dict) else None
        if isinstance(d, str) and os.path.basename(d).startswith("worker-"):
            shutil.rmtree(d, ignore_errors=True)
            # distributed's WorkSpace lock file beside the directory.
            with contextlib.suppress(OSError):
                os.remove(d + ".dirlock")
    trace.trace("cluster-killed")


def _wait_dead(procs: List[Any], timeout_s: float = 5.0) -> None:
    """Waits until each killed process runs no more code: gone, a zombie, or exiting (its kernel
    teardown begun). Not until the teardown ends: a GPU worker's takes ~0.1 s (its CUDA context
    freed by the driver?): the spawned four-GPU cluster's kill took 0.39 s, ~0.1 s a worker,
    against 18 ms for the same workers forked from the forkserver. Children already exited are
    reaped here; the rest are reaped by whoever inherits them when this process exits next."""
    left = list(procs)
    end = time.time() + timeout_s
    while left and time.time() < end:
        left = [p for p in left if not _stopped(p.pid)]
        if left:
            time.sleep(0.005)


# The kernel's PF_EXITING task flag (include/linux/sched.h): set as a killed process starts to exit.
_PF_EXITING = 0x4


def _stopped(pid: int) -> bool:
    """Whether process `pid` is gone, a zombie (reaped now if it is our child) or exiting."""
    try:
        fields = trace.stat_fields(pid)
    except (OSError, IndexError):
        return True
    if fields[0] in ("Z", "X"):
        if int(fields[1]) == os.getpid():
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
        return True
    return bool(int(fields[6]) & _PF_EXITING)


def _hold_loop(cluster: Any, timeout_s: float = 2.0) -> None:
    """Blocks the event loop the cluster's nannies run on (the process exits while it waits)."""
    loop = getattr(cluster, "loop", None)
    if loop is None:
        return
    entered = threading.Event()
    never = threading.Event()

    def hold() -> None:
        entered.set()
        never.wait()

    try:
        loop.add_callback(hold)
    except Exception as e:  # noqa: BLE001 - a closed loop runs nothing anyway
        log.warning("holding the cluster's event loop: %s", e)
        return
    entered.wait(timeout_s)
