"""The live event stream: a thread that polls the scheduler and emits the protocol's events.

Polling public Client calls keeps it the same on every distributed release and needs nothing
of ours on the scheduler: `Client.get_task_stream(start=t)` (the scheduler's task-stream plugin,
installed on first call; records carry worker, thread, nbytes, status and `startstops` with
"compute" and "transfer" spans in the worker's clock) and `Client.scheduler_info()` (workers
joining and leaving, memory and cpu metrics) about four times a second, memory once a second.
"""
from __future__ import annotations

import logging
import threading
import time
from typing import Any, Callable, Dict, Optional, Set, Tuple

from . import trace
from .cluster import scheduler_info
from .execute import backend_of
from .restarts import Departures

log = logging.getLogger("gpuflow_dask")
Emit = Callable[[Dict[str, Any]], None]
POLL_S = 0.25
OVERLAP_S = 10.0  # the task stream is ordered by stop time only roughly: re-read this much


class RunWatch:
    """What the pump needs of a run: its id, key prefix and our task specs and deps by key."""

    def __init__(self, run: str, prefix: str, specs: Dict[str, Dict[str, Any]], deps: Dict[str, list]) -> None:
        self.run = run
        self.prefix = prefix
        self.specs = specs
        self.deps = deps
        self.seen: Set[str] = set()  # our keys with a task event
        self.traced: Set[str] = set()  # workers whose first task of this run was traced

    def trace_first(self, worker: str, start: float, stop: float) -> None:
        """The phase trace's first task of this run on each worker (its start and end, worker clock)."""
        if trace.ON and worker not in self.traced:
            self.traced.add(worker)
            trace.at(f"first-task-start-{worker}", start)
            trace.at(f"first-task-done-{worker}", stop)


class EventPump(threading.Thread):
    def __init__(self, client: Any, emit: Emit, probe_of: Callable[[str], Dict[str, Any]], probes: Dict[str, Dict[str, Any]]) -> None:
        super().__init__(name="gpuflow-events", daemon=True)
        self.client = client
        self.emit = emit
        self.probe_of = probe_of
        self.probes = probes
        self.stop_flag = threading.Event()
        self.lock = threading.Lock()
        self.poll_lock = threading.Lock()  # the pump and a finishing run both poll
        self.runs: Dict[str, RunWatch] = {}
        self.since: Optional[float] = None
        self.done: Set[Tuple[str, str, float]] = set()
        self.where: Dict[str, Tuple[str, int]] = {}  # dask key -> (worker address, nbytes)
        self.workers: Dict[str, Dict[str, Any]] = {}
        self.names: Dict[str, str] = {}
        self.departures = Departures()  # workers that left, per identity (restarts.py)
        self.last_memory = 0.0
        # Called after a failed poll; True stops the pump (the bridge's check for a lost scheduler).
        self.on_failed_poll: Callable[[], bool] = lambda: False

    def watch(self, w: RunWatch) -> None:
        with self.lock:
            self.runs[w.prefix] = w
            if self.since is None:
                self.since = time.time() - OVERLAP_S

    def unwatch(self, w: RunWatch) -> None:
        with self.lock:
            self.runs.pop(w.prefix, None)

    def install(self) -> None:
        """Makes the scheduler start its task-stream plugin (it records only from then on), and
        subscribes to the batched members' reports (batch.py)."""
        from .batch import TOPIC

        self.client.subscribe_topic(TOPIC, self.on_member)
        self.client.get_task_stream(start=time.time(), plot=False) if _accepts_plot(self.client) else self.client.get_task_stream(start=time.time())

    def run(self) -> None:
        while not self.stop_flag.wait(POLL_S):
            # A client that lost its scheduler reconnects in the background; its cached info
            # answers the polls below without error, so its status is what tells.
            if self.client.status not in ("running", "newly-created") and self.on_failed_poll():
                return
            try:
                self.poll_workers()
                self.poll_tasks()
            except Exception as e:  # noqa: BLE001 - a failed poll is logged, the next one retries
                if not self.stop_flag.is_set():
                    log.warning("event poll failed: %s: %s", type(e).__name__, e)
                    if self.on_failed_poll():
                        return

    def name_of(self, addr: str) -> str:
        return self.names.get(addr, addr)

    def poll_workers(self) -> None:
        from .cluster import worker_info

        info = scheduler_info(self.client).get("workers", {})
        now = time.time()
        for addr, w in info.items():
            self.names[addr] = str(w.get("name", addr))
            if addr not in self.workers:
                self.workers[addr] = w
                self.emit({"type": "worker", "event": "added", "worker": worker_info(addr, w, self.probes.get(addr)), "time": now})
        for addr in [a for a in self.workers if a not in info]:
            w = self.workers.pop(addr)
            self.departures.count(addr, w)
            self.emit({"type": "worker", "event": "removed", "worker": worker_info(addr, w, self.probes.get(addr)), "time": now})
        if now - self.last_memory >= 1.0:
            self.last_memory = now
            mem = {}
            for addr, w in info.items():
                m = w.get("metrics", {}) or {}
                gpu = m.get("gpu") or {}
                mem[self.names[addr]] = {
                    "memory": int(m.get("memory", 0) or 0),
                    "limit": int(w.get("memory_limit") or 0),
                    "cpu": float(m.get("cpu", 0.0) or 0.0),
                    "gpu": float(gpu["utilization"]) if isinstance(gpu, dict) and gpu.get("utilization") is not None else None,
                }
            self.emit({"type": "memory", "time": now, "workers": mem})

    def poll_tasks(self) -> None:
        with self.poll_lock:
            self._poll_tasks()

    def _poll_tasks(self) -> None:
        with self.lock:
            if not self.runs or self.since is None:
                return
            since = self.since
        records = self.client.get_task_stream(start=since, plot=False) if _accepts_plot(self.client) else self.client.get_task_stream(start=since)
        latest = since + OVERLAP_S
        for r in records:
            spans = r.get("startstops") or []
            if spans:
                latest = max(latest, max(float(s["stop"]) for s in spans))
            self.record(r)
        with self.lock:
            self.since = latest - OVERLAP_S

    def record(self, r: Dict[str, Any]) -> None:
        key = r.get("key")
        if not isinstance(key, str):
            return
        run = next((w for p, w in list(self.runs.items()) if key.startswith(p)), None)
        addr = str(r.get("worker", ""))
        nbytes = r.get("nbytes")
        if isinstance(nbytes, int):
            self.where[key] = (addr, nbytes)
        if run is None:
            return
        ours = key[len(run.prefix):]
        spans = r.get("startstops") or []
        compute = [s for s in spans if s.get("action") == "compute"]
        if not compute:
            return
        ident = (key, addr, float(compute[0]["start"]))
        if ident in self.done:
            return
        self.done.add(ident)
        worker = self.name_of(addr)
        for s in spans:
            if s.get("action") != "transfer":
                continue
            src = str(s.get("source", ""))
            moved = sum(self.where.get(run.prefix + d, ("", 0))[1] for d in run.deps.get(ours, []) if self.where.get(run.prefix + d, ("", 0))[0] == src)
            self.emit({"type": "transfer", "run": run.run, "key": ours, "from": self.name_of(src), "to": worker, "start": float(s["start"]), "stop": float(s["stop"]), "bytes": int(moved)})
        ok = r.get("status", "OK") == "OK"
        ev: Dict[str, Any] = {
            "type": "task", "run": run.run, "key": ours, "worker": worker, "thread": r.get("thread") if isinstance(r.get("thread"), int) else None,
            "start": float(compute[0]["start"]), "stop": float(compute[-1]["stop"]), "status": "done" if ok else "erred",
            "nbytes": nbytes if isinstance(nbytes, int) else None, "backend": self.backend(run.specs.get(ours, {}), addr),
        }
        if not ok:
            ev["error"] = str(r.get("exception_text") or r.get("exception") or "task failed")
        run.seen.add(ours)
        run.trace_first(worker, ev["start"], ev["stop"])
        self.emit(ev)

    def on_member(self, event: Any) -> None:
        """A member of a batch ran: its `task` event, from the worker's own report."""
        try:
            _, m = event
            key = str(m["key"])
            with self.lock:
                run = next((w for p, w in self.runs.items() if key.startswith(p)), None)
            if run is None:
                return
            ours = key[len(run.prefix):]
            run.seen.add(ours)
            run.trace_first(self.name_of(str(m["worker"])), float(m["start"]), float(m["stop"]))
            self.emit({"type": "task", "run": run.run, "key": ours, "worker": self.name_of(str(m["worker"])), "thread": m.get("thread") if isinstance(m.get("thread"), int) else None,
                       "start": float(m["start"]), "stop": float(m["stop"]), "status": "done", "nbytes": m.get("nbytes"), "backend": str(m.get("backend", "numpy"))})
        except Exception as e:  # noqa: BLE001 - a malformed report is logged, never fatal
            log.warning("batch member report %r: %s", event, e)

    def backend(self, spec: Dict[str, Any], addr: str) -> str:
        p = self.probe_of(addr)
        return backend_of(spec, bool(p.get("capi")), bool(p.get("cuda")))

    def flush(self, w: RunWatch, keys: Set[str], timeout_s: float = 3.0) -> None:
        """Polls until every key of `keys` had its task event (or the timeout), before `done`."""
        end = time.time() + timeout_s
        while not keys <= w.seen and time.time() < end:
            try:
                self.poll_tasks()
            except Exception as e:  # noqa: BLE001
                log.warning("event flush failed: %s", e)
                return
            if not keys <= w.seen:
                time.sleep(0.05)

    def stop(self) -> None:
        self.stop_flag.set()


_plot_cache: Dict[int, bool] = {}


def _accepts_plot(client: Any) -> bool:
    """Client.get_task_stream has had a `plot` argument since 2017; checked once to be safe."""
    import inspect

    k = id(type(client))
    if k not in _plot_cache:
        _plot_cache[k] = "plot" in inspect.signature(client.get_task_stream).parameters
    return _plot_cache[k]
