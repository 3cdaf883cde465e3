"""A run whose cluster has workers but whose tasks stop moving: a notice, then a deadline.

A worker can sit on its tasks without failing them (a wedged driver or library, a stopped
process, a deadlock in a task): the scheduler keeps them `processing` and no output ever
arrives. The run asks the scheduler every POLL_S for the states of its own keys (the key
prefix); any change of the per-state counts or of the processing set counts as progress, and
so does a new `task` event of the run (`reported()`): a batched combine is one Dask task that
runs all its members (batch.py), which report one by one while the scheduler shows no change. With
no progress for NOTICE_S (or half the deadline, if shorter) it says so once, naming what the
scheduler reports; with none for the deadline (`--dask-wait`, the same seconds the run waits
for workers) it fails with `no-progress`. A single task that legitimately takes longer than the
deadline needs a larger --dask-wait, which the message says.
"""
from __future__ import annotations

import logging
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

log = logging.getLogger("gpuflow_dask")
POLL_S = 2.0
NOTICE_S = 10.0

Snapshot = Dict[str, Any]


def _scheduler_probe() -> Callable[..., Snapshot]:
    """The function the scheduler runs. Built in a closure so that cloudpickle ships it by
    value: a scheduler started without gpuflow_dask on its path can still run it."""

    def probe(prefix: str, dask_scheduler: Any = None) -> Snapshot:
        counts: Dict[str, int] = {}
        processing: List[Tuple[str, str]] = []
        erred: List[str] = []
        for key, ts in dask_scheduler.tasks.items():
            k = str(key)
            if not k.startswith(prefix):
                continue
            counts[ts.state] = counts.get(ts.state, 0) + 1
            if ts.state == "processing":
                processing.append((k[len(prefix):], str(ts.processing_on.address) if ts.processing_on is not None else "?"))
            elif ts.state == "erred":
                erred.append(k[len(prefix):])
        return {"counts": counts, "processing": sorted(processing), "erred": sorted(erred)[:5]}

    return probe


def describe(snap: Snapshot) -> str:
    """What the scheduler reports of a run's tasks, in one line."""
    counts = ", ".join(f"{n} {state}" for state, n in sorted(snap["counts"].items())) or "no tasks"
    parts = [counts]
    procs = snap["processing"]
    if procs:
        shown = "; ".join(f"{k} on {w}" for k, w in procs[:3])
        parts.append(f"processing: {shown}{' …' if len(procs) > 3 else ''}")
    if snap["erred"]:
        parts.append(f"erred: {', '.join(snap['erred'])}")
    return "; ".join(parts)


def worker_log_errors(client: Any, workers: List[str], timeout_s: float = 3.0) -> str:
    """The last warning or error in the logs of the workers that hold the run's tasks. A wedged
    worker may never answer, so the ask runs in a thread given timeout_s."""
    box: Dict[str, Any] = {}

    def ask() -> None:
        try:
            box["logs"] = client.get_worker_logs(n=100, workers=workers)
        except Exception as e:  # noqa: BLE001 - reported in the notice
            box["error"] = f"{type(e).__name__}: {e}"

    t = threading.Thread(target=ask, name="gpuflow-worker-logs", daemon=True)
    t.start()
    t.join(timeout_s)
    if "logs" not in box:
        return f"workers' logs: {box.get('error') or f'no answer from {len(workers)} worker(s) in {timeout_s:g} s'}"
    last = []
    for addr, lines in sorted(box["logs"].items()):
        bad = [str(msg) for level, msg in lines if level in ("WARNING", "ERROR", "CRITICAL")]
        if bad:
            last.append(f"{addr}: {bad[-1][:300]}")
    return "workers' logs: " + ("; ".join(last) if last else "no warning or error")


class StallWatch:
    """Tells a run when its tasks stopped moving (see the module docstring)."""

    def __init__(self, client: Any, prefix: str, deadline_s: float, reported: Callable[[], int], clock: Callable[[], float] = time.time) -> None:
        self.client = client
        self.reported = reported
        self.prefix = prefix
        self.deadline_s = deadline_s
        self.notice_s = min(NOTICE_S, deadline_s / 2)
        self.clock = clock
        self.probe = _scheduler_probe()
        self.last_poll = clock()
        self.last_change = self.last_poll
        self.last_key: Optional[Any] = None
        self.noticed = False

    def reset(self) -> None:
        """No workers: that wait has its own notice and deadline (runs.py)."""
        self.last_change = self.clock()
        self.noticed = False

    def check(self) -> Tuple[Optional[str], Optional[str]]:
        """(a notice to send, a failure message): each None when there is nothing to say."""
        now = self.clock()
        if now - self.last_poll < POLL_S:
            return None, None
        self.last_poll = now
        try:
            snap = self.client.run_on_scheduler(self.probe, self.prefix)
        except Exception as e:  # noqa: BLE001 - a lost scheduler is the run loop's to name
            log.warning("stall probe of %s: %s", self.prefix, e)
            return None, None
        key = (sorted(snap["counts"].items()), snap["processing"], self.reported())
        if key != self.last_key:
            self.last_key = key
            self.last_change = now
            self.noticed = False
            return None, None
        idle = now - self.last_change
        if idle >= self.deadline_s:
            return None, f"no task of this run started or finished for {idle:.0f} s while the cluster has workers (scheduler: {describe(snap)}); see the workers' logs, or give --dask-wait more seconds if one task takes that long"
        if idle >= self.notice_s and not self.noticed:
            self.noticed = True
            logs = worker_log_errors(self.client, sorted({w for _, w in snap["processing"] if w != "?"})) if snap["processing"] else "no task processing"
            return f"no task of this run started or finished for {idle:.0f} s (scheduler: {describe(snap)}; {logs}); failing after {self.deadline_s:g} s (--dask-wait)", None
        return None, None
