"""Workers that leave mid-run, and the worker that keeps restarting.

A worker under a nanny that dies (most often killed at its memory limit while running a task)
comes back under the same name and nanny address with a new worker address; Dask reruns its
tasks, and a task whose workers keep dying fails with KilledWorker only after
`distributed.scheduler.allowed-failures` deaths (a cluster can set that high, and a worker that
dies between tasks never trips it). So the bridge counts departures per worker identity (the
nanny address, else the name): each one is a notice naming the worker, and RESTART_LIMIT of the
same worker in one run fail it with `worker-restarting`, naming it. A KilledWorker that comes
first gets the same kind of message, naming the last worker and the node.
"""
from __future__ import annotations

import threading
from typing import Any, Dict, Optional, Tuple

RESTART_LIMIT = 3
ADVICE = "a worker dies like this when a task needs more memory than its limit, or crashes: give the workers more memory (dask worker --memory-limit) or use smaller chunks"


def identity(addr: str, w: Dict[str, Any]) -> str:
    """What stays the same when a nanny restarts its worker: the nanny's address, else the name."""
    return str(w.get("nanny") or w.get("name") or addr)


def describe(addr: str, w: Dict[str, Any]) -> str:
    """`'name' (address, memory limit N MB, nanny ADDR)` of a worker's scheduler_info entry."""
    parts = [addr]
    limit = int(w.get("memory_limit") or 0)
    if limit:
        parts.append(f"memory limit {limit / 1e6:.0f} MB")
    if w.get("nanny"):
        parts.append(f"nanny {w['nanny']}")
    return f"'{w.get('name', addr)}' ({', '.join(parts)})"


class Departures:
    """Departures per worker identity since the bridge connected, with the last one's info."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.counts: Dict[str, Tuple[int, str, Dict[str, Any]]] = {}

    def count(self, addr: str, w: Dict[str, Any]) -> None:
        with self.lock:
            n = self.counts.get(identity(addr, w), (0, addr, w))[0]
            self.counts[identity(addr, w)] = (n + 1, addr, w)

    def snapshot(self) -> Dict[str, Tuple[int, str, Dict[str, Any]]]:
        with self.lock:
            return dict(self.counts)


class RunDepartures:
    """One run's view: departures since it started; what to say about them."""

    def __init__(self, departures: Departures) -> None:
        self.departures = departures
        self.base = {k: v[0] for k, v in departures.snapshot().items()}
        self.told: Dict[str, int] = {}

    def check(self) -> Tuple[list, Optional[str]]:
        """(notices for departures not yet told, the failure message once a worker left RESTART_LIMIT times)."""
        notices, failure = [], None
        for ident, (n, addr, w) in self.departures.snapshot().items():
            k = n - self.base.get(ident, 0)
            if k <= self.told.get(ident, 0):
                continue
            self.told[ident] = k
            if k >= RESTART_LIMIT:
                failure = f"Dask worker {describe(addr, w)} left {k} times during this run (restarted by its nanny each time); {ADVICE}"
            else:
                notices.append(f"Dask worker {describe(addr, w)} left mid-run ({k} of at most {RESTART_LIMIT - 1} times); Dask reruns its tasks")
        return notices, failure


def killed_worker_message(exc: BaseException, our_key: Optional[str]) -> Optional[str]:
    """The message of Dask's KilledWorker (a task whose workers all died), or None for other errors."""
    if type(exc).__name__ != "KilledWorker":
        return None
    args = getattr(exc, "args", ())
    last = args[1] if len(args) > 1 else None  # a WorkerState, or its address
    addr = str(getattr(last, "address", last))
    w = {"name": getattr(last, "name", addr), "memory_limit": getattr(last, "memory_limit", 0), "nanny": getattr(last, "nanny", None)}
    tries = args[2] if len(args) > 2 else None
    return f"Dask gave up on task {our_key} after {tries or 'several'} workers died running it (the last: worker {describe(addr, w)}); {ADVICE}"
