"""One submitted graph: our tasks as a Dask graph, its futures, its results, cancel.

Each of our tasks is one Dask task `(run_task, TaskPayload, *dep keys)` keyed
`<label>-<graph token>-<fresh token>:<our key>` (key_prefix): the graph token differs for other
params (a seed changes the specs), the fresh one for every run, so two runs on one scheduler
never share results, even of the same graph from two gpuflow processes or exported scripts
whose run labels agree, and the event pump can tell runs apart. The graph goes in through `Client.get(dsk,
keys, sync=False)` (a dict graph: accepted by distributed 2022.12 and converted by current
releases). A thread per run waits on the output futures, gathers them, sends `result`, makes
sure every finished task had its `task` event, sends `done`, and releases the futures so the
cluster is left clean.
"""
from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
import uuid
from typing import Any, Callable, Dict, List, Optional

from .errors import TaskFailure
from . import trace
from .batch import plan, run_batch
from .events import EventPump, RunWatch
from .execute import TaskPayload, run_task
from .messages import Submit, failed, notice
from .restarts import Departures, RunDepartures, killed_worker_message
from .sources import check_sources
from .stall import StallWatch
from .values import to_wire

log = logging.getLogger("gpuflow_dask")
# How long a run that failed with an exception waits for the scheduler's port to close before it
# calls the failure internal rather than a lost scheduler (_lost_within).
LOST_GRACE_S = 2.0
Emit = Callable[[Dict[str, Any]], None]


def key_prefix(label: str, graph: Any, params: Any = None) -> str:
    """The Dask key prefix of one run: a token of the graph and params, and a fresh one."""
    canon = json.dumps({"graph": graph, "params": params}, sort_keys=True, separators=(",", ":"), default=str)
    token = hashlib.sha256(canon.encode("utf-8")).hexdigest()[:16]
    return f"{label}-{token}-{uuid.uuid4().hex[:12]}:"


def dask_graph(sub: Submit, prefix: str, batches: Optional[Dict[str, List[str]]] = None) -> Dict[str, Any]:
    """The Dask graph of a submit message; a batched combine's members vanish into it (batch.py)."""
    batches = batches or {}
    members = {m for ms in batches.values() for m in ms}
    by_key = {t.key: t for t in sub.tasks}
    dsk: Dict[str, Any] = {}
    for t in sub.tasks:
        if t.key in members:
            continue
        payload = TaskPayload(t.key, t.node, t.spec)
        if t.key in batches:
            ms = [TaskPayload(m, by_key[m].node, by_key[m].spec) for m in batches[t.key]]
            dsk[prefix + t.key] = (run_batch, ms, payload, prefix)
        else:
            dsk[prefix + t.key] = (run_task, payload, *[prefix + d for d in t.deps])
    return dsk


def failure_of(exc: BaseException, sub: Submit) -> Dict[str, Any]:
    """The `failed` message of a task's exception, as the client re-raised it."""
    if isinstance(exc, TaskFailure):
        return failed(sub.id, exc.code if exc.code in ("task-error", "unsupported-op") else "internal", exc.message, exc.key, exc.node)
    dask_key = str(getattr(exc, "args", ("",))[0] or "")
    our_key = dask_key.split(":", 1)[1] if ":" in dask_key else None
    killed = killed_worker_message(exc, our_key)
    if killed is not None:
        node = next((t.node for t in sub.tasks if t.key == our_key), None)
        return failed(sub.id, "worker-restarting", killed, our_key if node else None, node)
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, ModuleNotFoundError) or "No module named 'gpuflow_dask'" in text:
        return failed(sub.id, "worker-missing-package", f"a Dask worker cannot import gpuflow_dask ({text}); install it there (PYTHONPATH=<repo>/python) or let the bridge upload it")
    return failed(sub.id, "task-error", text)


def scheduler_reachable(address: str, timeout_s: float = 1.0) -> bool:
    """Whether the scheduler's port still accepts a TCP connection (tcp:// and tls:// only)."""
    import socket
    from urllib.parse import urlsplit

    try:
        u = urlsplit(address)
        with socket.create_connection((u.hostname or "127.0.0.1", u.port or 8786), timeout=timeout_s):
            return True
    except (OSError, ValueError):
        return False


class Cluster:
    """What a run needs to know of its cluster beyond the client (Bridge supplies it)."""

    def __init__(self, scheduler: str, wait_s: float, worker_count: Callable[[], int], on_lost: Callable[[str], None], departures: Optional[Departures] = None) -> None:
        self.scheduler = scheduler
        self.wait_s = wait_s
        self.worker_count = worker_count
        self.on_lost = on_lost
        self.departures = departures or Departures()

    def lost(self) -> bool:
        """The scheduler is gone (the client gave up on it, or its port is closed)."""
        return not scheduler_reachable(self.scheduler)


class Run:
    def __init__(self, client: Any, sub: Submit, emit: Emit, pump: EventPump, on_end: Callable[["Run"], None], cluster: Cluster) -> None:
        self.client = client
        self.sub = sub
        self.emit = emit
        self.pump = pump
        self.on_end = on_end
        self.cluster = cluster
        self.prefix = key_prefix(sub.id, [[t.key, t.deps, t.spec] for t in sub.tasks])
        self.cancelled = threading.Event()
        self.futures: List[Any] = []
        self.batches = plan(sub.tasks, sub.outputs)
        self.watch = RunWatch(sub.id, self.prefix, {t.key: t.spec for t in sub.tasks}, {t.key: t.deps for t in sub.tasks})
        # A batched combine moves no member values between workers: its deps are its members.
        for c in self.batches:
            self.watch.deps[c] = []
        self.thread = threading.Thread(target=self._wait, name=f"gpuflow-run-{sub.id}", daemon=True)

    def start(self) -> None:
        check_sources(self.client, self.sub.tasks)
        self.pump.watch(self.watch)
        self.futures = self.client.get(dask_graph(self.sub, self.prefix, self.batches), [self.prefix + k for k in self.sub.outputs], sync=False)
        trace.trace("graph-submitted")
        self.thread.start()

    def cancel(self) -> None:
        self.cancelled.set()
        try:
            self.client.cancel(self.futures)
        except Exception as e:  # noqa: BLE001 - the run ends as cancelled either way
            log.warning("cancel of %s: %s", self.sub.id, e)

    def _outcome(self) -> Optional[Dict[str, Any]]:
        """Waits for the outputs with a watch on the cluster: the message that ends the run
        early (a failure, no workers past the deadline, the scheduler lost), or None when every
        output is in."""
        from distributed import wait

        pending = set(self.futures)
        empty_since: Optional[float] = None
        departures = RunDepartures(self.cluster.departures)
        stall = StallWatch(self.client, self.prefix, self.cluster.wait_s, lambda: len(self.watch.seen))
        while pending and not self.cancelled.is_set():
            try:
                done, pending = wait(list(pending), timeout=0.5, return_when="FIRST_COMPLETED")
            except Exception as e:  # noqa: BLE001 - a timeout (its class differs by release) or a lost client
                if "Timeout" not in type(e).__name__ and not isinstance(e, TimeoutError):
                    if self.cluster.lost():
                        return self._lost_message("its connection closed")
                    raise
                done = set()
            for f in done:
                if f.status == "error":
                    return failure_of(f.exception(), self.sub)
                if f.status == "cancelled" and not self.cancelled.is_set():
                    # Futures are cancelled under us when the client loses the scheduler.
                    if self.client.status != "running" or self.cluster.lost():
                        return self._lost_message("its connection closed")
                    return failed(self.sub.id, "internal", f"the Dask future of {f.key} was cancelled by someone else (another client or the scheduler)")
            if pending and self.client.status not in ("running", "newly-created") and self.cluster.lost():
                return self._lost_message(f"client {self.client.status}")
            notices, restarting = departures.check()
            for text in notices:
                self.emit(notice(self.sub.id, text))
            if restarting is not None:
                return failed(self.sub.id, "worker-restarting", restarting)
            if self.cluster.worker_count() == 0:
                now = time.time()
                if empty_since is None:
                    empty_since = now
                    self.emit(notice(self.sub.id, f"waiting for workers on {self.cluster.scheduler} (up to {self.cluster.wait_s:g} s; --dask-wait)"))
                elif now - empty_since > self.cluster.wait_s:
                    return failed(self.sub.id, "no-workers", f"no Dask worker on {self.cluster.scheduler} for {self.cluster.wait_s:g} s: start workers (dask worker {self.cluster.scheduler}) or give --dask-wait more seconds")
                stall.reset()
            else:
                empty_since = None
                note, stuck = stall.check()
                if note is not None:
                    self.emit(notice(self.sub.id, note))
                if stuck is not None:
                    return failed(self.sub.id, "no-progress", stuck)
        return None

    def _lost_message(self, detail: str) -> Dict[str, Any]:
        msg = f"lost the scheduler at {self.cluster.scheduler} mid-run ({detail}); the next run reconnects"
        self.cluster.on_lost(msg)
        return failed(self.sub.id, "scheduler-lost", msg)

    def _wait(self) -> None:
        try:
            end = self._outcome()
            if self.cancelled.is_set():
                self.emit({"type": "cancelled", "id": self.sub.id})
                return
            if end is not None:
                self.emit(end)
                try:
                    self.client.cancel(self.futures)
                except Exception as e:  # noqa: BLE001 - a lost scheduler cannot cancel
                    log.warning("cancel after failure of %s: %s", self.sub.id, e)
                return
            trace.trace("outputs-ready")
            values = self.client.gather(self.futures)
            result = {"type": "result", "id": self.sub.id, "values": {k: to_wire(v) for k, v in zip(self.sub.outputs, values)}}
            trace.trace("result-sent")
            self.emit(result)
            self.pump.flush(self.watch, self.completed_keys())
            trace.trace("done-sent")
            self.emit({"type": "done", "id": self.sub.id})
        except Exception as e:  # noqa: BLE001 - cancellation surfaces here as CancelledError
            if self.cancelled.is_set():
                self.emit({"type": "cancelled", "id": self.sub.id})
            elif self._lost_within(LOST_GRACE_S):
                self.emit(self._lost_message("its connection closed"))
            else:
                log.exception("run %s", self.sub.id)
                self.emit(failed(self.sub.id, "internal", f"{type(e).__name__}: {e}"))
        finally:
            self.release()
            self.pump.unwatch(self.watch)
            self.on_end(self)

    def _lost_within(self, seconds: float) -> bool:
        """Whether the scheduler is gone now or within `seconds`: the client sees a killed scheduler's
        futures cancelled a moment before its port stops answering, and that moment is no internal error."""
        deadline = time.time() + seconds
        while not self.cluster.lost():
            if time.time() >= deadline:
                return False
            time.sleep(0.1)
        return True

    def completed_keys(self) -> set:
        """Our keys the scheduler ran for this run (all of them once the outputs are in)."""
        return {t.key for t in self.sub.tasks}

    def release(self) -> None:
        for f in self.futures:
            try:
                f.release()
            except Exception:  # noqa: BLE001 - already released
                pass
        self.futures = []
