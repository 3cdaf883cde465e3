"""Batching: a combine and the chunk programs that feed only it run as ONE Dask task.

Dask costs about half a millisecond per task; a fused chunk program on a GPU can take less, so
the 2 TB seed graph (2500 chunks) would be all overhead. Where a `combine` has only leaf
`program` deps (no deps of their own, read by nothing else, not outputs), `run_batch` runs them
and the combine in one task, in dependency order, on one worker. The members still report as
tasks of their own: each one's exact start/stop goes to the scheduler with
`Worker.log_event("gpuflow-tasks", ...)` and the bridge (events.py) turns it into a `task` event.
GPUFLOW_DASK_BATCH=0 turns batching off.
"""
from __future__ import annotations

import os
import threading
import time
from typing import Any, Dict, List, Sequence

from .execute import TaskPayload, run_task

TOPIC = "gpuflow-tasks"
MIN_MEMBERS = 2


def plan(tasks: Sequence[Any], outputs: Sequence[str]) -> Dict[str, List[str]]:
    """combine key -> its member chunk keys, for every combine that can be batched."""
    if os.environ.get("GPUFLOW_DASK_BATCH") == "0":
        return {}
    by_key = {t.key: t for t in tasks}
    readers: Dict[str, int] = {}
    for t in tasks:
        for d in t.deps:
            readers[d] = readers.get(d, 0) + 1
    out = set(outputs)
    batches: Dict[str, List[str]] = {}
    for t in tasks:
        if t.spec.get("kind") != "combine" or len(t.deps) < MIN_MEMBERS or len(set(t.deps)) != len(t.deps):
            continue
        ok = all(
            by_key[d].spec.get("kind") == "program" and not by_key[d].deps and readers.get(d) == 1 and d not in out
            for d in t.deps
        )
        if ok:
            batches[t.key] = list(t.deps)
    return batches


def _report(member: TaskPayload, start: float, stop: float, value: Any) -> None:
    """Tells the scheduler a member ran (no-op outside a distributed worker, e.g. dask.threaded)."""
    try:
        from dask.sizeof import sizeof
        from distributed import get_worker

        w = get_worker()
    except (ImportError, ValueError):
        return
    backend = "numpy"
    if member.spec.get("kind") == "program":
        from . import capi

        backend = ("capi-cuda" if capi.load_cuda() is not None else "capi-cpu") if capi.load() is not None else "numpy"
    w.log_event(TOPIC, {"key": member.key, "worker": w.address, "start": start, "stop": stop, "thread": threading.get_ident(), "nbytes": int(sizeof(value)), "backend": backend})


def run_batch(members: Sequence[TaskPayload], combine: TaskPayload, run_key_prefix: str) -> Any:
    """Runs the member programs, then the combine on their values; returns the combine's value."""
    values = []
    for m in members:
        t0 = time.time()
        v = run_task(m)
        values.append(v)
        _report(TaskPayload(run_key_prefix + m.key, m.node, m.spec), t0, time.time(), v)
    return run_task(combine, *values)
