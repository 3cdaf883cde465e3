"""`python -m gpuflow_dask.bridge`: the JSON-lines process between gpuflow's main and Dask.

stdin carries main's messages, stdout only our JSON lines (docs/dask.md); everything else,
Dask's logging and any stray print of a library or a worker process, goes to stderr: the
protocol stream is a duplicate of the original fd 1, and fd 1 itself is pointed at stderr
before anything starts. A reader thread feeds a queue; the main thread handles one message at
a time; runs wait on their futures in threads of their own and the event pump polls the
scheduler, all writing through one locked writer.
"""
from __future__ import annotations

import json
import logging
import os
import platform
import queue
import sys
import threading
from typing import Any, Dict, Optional, TextIO

from . import capi, trace
from .messages import PROTOCOL, BadMessage, Cancel, Connect, Shutdown, Submit, WorkersQuery, error, failed, parse

log = logging.getLogger("gpuflow_dask")


class Writer:
    """One JSON object per line on the protocol stream, from any thread."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.lock = threading.Lock()

    def __call__(self, msg: Dict[str, Any]) -> None:
        line = json.dumps(msg, separators=(",", ":"), allow_nan=False, default=_json_default)
        with self.lock:
            self.stream.write(line + "\n")
            self.stream.flush()


def _json_default(x: Any) -> Any:
    """NumPy scalars in JSON values (json kind); NaN/inf are refused by allow_nan=False."""
    if hasattr(x, "item"):
        return x.item()
    raise TypeError(f"{type(x).__name__} is not JSON")


def versions() -> Dict[str, Optional[str]]:
    """The packages' versions: dask and distributed from their modules (the bridge imports them
    anyway); numpy, pandas and cupy from their installed metadata unless already imported, as the
    bridge needs neither pandas nor CuPy itself (importing them cost ~0.3 s and ~1 s of its
    start), falling back to an import."""
    out: Dict[str, Optional[str]] = {}
    for name in ("dask", "distributed", "numpy", "pandas", "cupy"):
        try:
            if name not in sys.modules and name in ("numpy", "pandas", "cupy"):
                found = _installed_version(name)
                if found is not None:
                    out[name] = found
                    continue
            # An import, even of a module in sys.modules: the prestart thread may be importing
            # it right now, and the import waits for that to finish (a half-made module has no
            # __version__ yet).
            mod = __import__(name)
            out[name] = str(getattr(mod, "__version__", "?"))
        except Exception:  # noqa: BLE001 - absent or broken: reported as null
            out[name] = None
    return out


def _installed_version(name: str) -> Optional[str]:
    """The version of the distribution providing module `name` without importing it; None when
    that cannot be told (then the caller imports it). CuPy's distribution is named for its CUDA
    (cupy-cuda12x, ...)."""
    import importlib.metadata as md
    import importlib.util

    if importlib.util.find_spec(name) is None:
        raise ImportError(name)
    try:
        if name != "cupy":
            return md.version(name)
        for d in md.distributions():
            dist = (d.metadata["Name"] or "").lower()
            if dist == "cupy" or dist.startswith("cupy-"):
                return str(d.version)
    except Exception:  # noqa: BLE001 - odd metadata: import instead
        return None
    return None


CUDA_CHECK_S = 30.0


def cuda_status() -> "tuple[bool, str]":
    """(the CUDA library loads AND initialises a device here, why not). A library file that
    exists says nothing of a device, so the check runs capi.load_cuda() (gf_cuda_available) in a
    child process: CUDA really initialises, and its context goes with the child, so the bridge
    holds no GPU memory of its own. No library file: no child."""
    import subprocess

    if os.environ.get("GPUFLOW_DASK_DEVICE") == "cpu":
        return False, "disabled by GPUFLOW_DASK_DEVICE=cpu"
    if not capi.cuda_library_file():
        return False, f"no {capi.CUDA_LIB_NAME} (built by node native/build.mjs where nvcc is)"
    code = "import json; from gpuflow_dask import capi; ok = capi.load_cuda() is not None; print(json.dumps([ok, capi.cuda_why()]))"
    env = os.environ.copy()
    env["CUDA_VISIBLE_DEVICES"] = first_gpu(env.get("CUDA_VISIBLE_DEVICES"))
    here = os.path.dirname(os.path.dirname(os.path.abspath(capi.__file__)))  # the folder holding gpuflow_dask
    env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    try:
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=CUDA_CHECK_S, env=env)
        lines = r.stdout.strip().splitlines()
        if not lines:
            return False, f"the CUDA check exited {r.returncode}: {r.stderr.strip()[-300:]}"
        ok, why = json.loads(lines[-1])
        return bool(ok), str(why)
    except subprocess.TimeoutExpired:
        return False, f"the CUDA check did not finish within {CUDA_CHECK_S:g} s"
    except (ValueError, IndexError, OSError) as e:
        return False, f"the CUDA check failed: {type(e).__name__}: {e}"


def first_gpu(visible: Optional[str]) -> str:
    """The CUDA check's CUDA_VISIBLE_DEVICES: the first GPU of `visible` (the bridge's value; none
    set: the first device). One device answers "CUDA initialises a device here", and the check
    then initialises the driver for that one only: on `gpuflow run --dask local-cuda` it runs
    while the workers create their own contexts. "" or -1 (no device) stay as they are."""
    if visible is None:
        return "0"
    first = visible.split(",")[0].strip()
    return visible if first in ("", "-1") else first


def capi_status() -> Dict[str, Any]:
    """The ready message's `capi`: the CPU library loads here; CUDA initialises a device here."""
    cuda, cuda_why = cuda_status()
    return {"cpu": capi.load() is not None, "cuda": cuda, "why": f"{capi.why()}; cuda: {cuda_why}"}


class Bridge:
    def __init__(self, emit: Writer, prestart: Any = None) -> None:
        self.emit = emit
        # A local cluster started with the bridge (prestart.py), for the first connect to take.
        self.prestart = prestart
        self.client: Any = None
        self.cluster: Any = None
        self.pump: Any = None
        self.probes: Dict[str, Dict[str, Any]] = {}
        self.runs: Dict[str, Any] = {}
        self.wait_s = 60.0
        self.scheduler = ""
        # Why the scheduler is gone (None while connected): later submits fail at once with it.
        self.lost_reason: Optional[str] = None
        self.lost_lock = threading.Lock()
        # A `shutdown` with fast: end now (close_fast), the gpuflow process exits next.
        self.fast = False

    # ---- messages ----
    def handle(self, msg: Any) -> bool:
        """Handles one message; False when the bridge should exit."""
        if isinstance(msg, Shutdown):
            self.fast = msg.fast
            return False
        if isinstance(msg, Connect):
            self.connect(msg)
        elif isinstance(msg, WorkersQuery):
            if self.client is None:
                self.emit(error(msg.id, "internal", "workers: not connected (send connect first)"))
            else:
                self.emit({"type": "workers", "id": msg.id, "workers": self.describe()})
        elif isinstance(msg, Submit):
            self.submit(msg)
        elif isinstance(msg, Cancel):
            run = self.runs.get(msg.id)
            if run is None:
                self.emit(error(msg.id, "bad-message", f"cancel: no run {msg.id} in flight"))
            else:
                run.cancel()
        return True

    def connect(self, msg: Connect) -> None:
        from .cluster import ConnectError, check_versions, probe_all, ship, start

        # The cluster started with the bridge (prestart.py) is not closed with the client below.
        pre, self.prestart = self.prestart, None
        self.close()
        trace.trace("connect-received")
        if pre is not None and pre.target != msg.target:
            pre.discard()
            pre = None
        if pre is not None:
            trace.trace("prestart-taken")
        try:
            self.client, self.cluster = _with_timeout(lambda: pre.take() if pre is not None else start(msg.target, msg.timeout_s, msg.tls), msg.timeout_s + 5, msg.target)
            trace.trace("client-connected")
            check_versions(self.client)
            trace.trace("versions-checked")
            probes = probe_all(self.client)
            trace.trace("workers-probed")
            self.probes = ship(self.client, probes)
            trace.trace("package-shipped")
        except ConnectError as e:
            self.close()
            self.emit(error(msg.id, e.code, str(e)))
            return
        except Exception as e:  # noqa: BLE001 - any other failure names the target
            self.close()
            self.emit(error(msg.id, "internal", f"connect to {msg.target} failed: {type(e).__name__}: {e}"))
            return
        from .cluster import scheduler_info
        from .events import EventPump

        self.wait_s = msg.wait_s
        self.scheduler = str(self.client.scheduler.address)
        self.lost_reason = None
        self.pump = EventPump(self.client, self.emit, self.probe_of, self.probes)
        self.pump.on_failed_poll = self.check_lost
        # The scheduler installs its task-stream plugin on the first query: do it now, so the
        # first run's early tasks are recorded.
        self.pump.install()
        trace.trace("events-installed")
        info = scheduler_info(self.client)
        if trace.ON:
            trace.workers(self.client, info, self.probes, msg.target.startswith("local"))
        self.pump.workers = dict(info.get("workers", {}))
        self.pump.names = {a: str(w.get("name", a)) for a, w in self.pump.workers.items()}
        self.pump.start()
        dashboard = None
        try:
            dashboard = self.client.dashboard_link if info.get("services", {}).get("dashboard") else None
        except Exception:  # noqa: BLE001 - no dashboard
            dashboard = None
        hello = {"type": "connected", "id": msg.id, "scheduler": self.client.scheduler.address, "dashboard": dashboard, "workers": self.describe()}
        trace.trace("connected")
        self.emit(hello)

    def on_lost(self, message: str) -> None:
        """Tells main once that the scheduler is gone (main marks the target disconnected)."""
        from .messages import lost

        with self.lost_lock:
            if self.lost_reason is not None:
                return
            self.lost_reason = message
        self.emit(lost(self.scheduler, message))

    def check_lost(self) -> bool:
        """After a failed event poll: whether the scheduler is gone (then main hears of it)."""
        from .runs import scheduler_reachable

        if self.client is None or scheduler_reachable(self.scheduler):
            return False
        self.on_lost(f"lost the scheduler at {self.scheduler} (it no longer accepts connections); the next run reconnects")
        return True

    def describe(self) -> Any:
        from .cluster import describe

        return describe(self.client, self.probes)

    def probe_of(self, addr: str) -> Dict[str, Any]:
        """What a worker can run (its probe; a worker that joined later is probed on first use)."""
        p = self.probes.get(addr)
        if isinstance(p, dict) and "capi" in p:
            return p
        return self.probes_for_new(addr)

    def probes_for_new(self, addr: str) -> Dict[str, Any]:
        """A worker that joined after connect: probe it once."""
        try:
            from .cluster import probe_all

            self.probes.update(probe_all(self.client))
        except Exception as e:  # noqa: BLE001
            log.warning("probe of %s failed: %s", addr, e)
        p = self.probes.get(addr)
        if not isinstance(p, dict):
            p = {"capi": False}
            self.probes[addr] = p
        return p

    def submit(self, msg: Submit) -> None:
        trace.trace("submit-received")
        from .runs import Run

        if self.client is None:
            self.emit(failed(msg.id, "internal", "submit: not connected (send connect first)"))
            return
        if msg.id in self.runs:
            self.emit(failed(msg.id, "internal", f"submit: run {msg.id} is already in flight"))
            return
        if self.lost_reason is not None:
            self.emit(failed(msg.id, "scheduler-lost", self.lost_reason))
            return
        from .errors import TaskFailure
        from .runs import Cluster, failure_of

        pump = self.pump
        cluster = Cluster(self.scheduler, self.wait_s, lambda: len(pump.workers), self.on_lost, pump.departures)
        run = Run(self.client, msg, self.emit, self.pump, lambda r: self.runs.pop(r.sub.id, None), cluster)
        self.runs[msg.id] = run
        try:
            run.start()
        except TaskFailure as e:  # a source file the workers cannot see (sources.py)
            self.runs.pop(msg.id, None)
            self.emit(failure_of(e, msg))
        except Exception as e:  # noqa: BLE001
            self.runs.pop(msg.id, None)
            self.emit(failed(msg.id, "internal", f"submit failed: {type(e).__name__}: {e}"))

    def close(self) -> None:
        """Cancels runs, closes the client and any cluster we started."""
        if self.client is not None:
            trace.trace("close-begins")
        if self.prestart is not None:
            self.prestart.discard()
            self.prestart = None
        for run in list(self.runs.values()):
            run.cancel()
        for run in list(self.runs.values()):
            run.thread.join(timeout=5)
        if self.pump is not None:
            self.pump.stop()
            self.pump = None
        if self.client is not None:
            try:
                self.client.close(timeout=5)
            except Exception as e:  # noqa: BLE001
                log.warning("client close: %s", e)
            self.client = None
            trace.trace("client-closed")
        if self.cluster is not None:
            try:
                self.cluster.close(timeout=10)
            except Exception as e:  # noqa: BLE001
                log.warning("cluster close: %s", e)
            self.cluster = None
            trace.trace("cluster-closed")


def _with_timeout(fn: Any, timeout_s: float, target: str) -> Any:
    """Runs a blocking connect with a hard deadline (a scheduler that accepts but never answers)."""
    from .cluster import ConnectError

    box: Dict[str, Any] = {}

    def go() -> None:
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller
            box["error"] = e

    t = threading.Thread(target=go, daemon=True)
    t.start()
    t.join(timeout_s)
    if t.is_alive():
        raise ConnectError("unreachable", f"Dask scheduler {target} did not answer within {timeout_s:g} s")
    if "error" in box:
        raise box["error"]
    return box["value"]


def _protocol_stream() -> TextIO:
    """Our stdout for JSON lines; fd 1 becomes stderr so nothing else can write into the protocol."""
    sys.stdout.flush()
    out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


def main() -> int:
    if trace.ON:
        trace.at("bridge-process", trace.process_started_s(os.getpid()))
        trace.trace("bridge-imported")
    logging.basicConfig(stream=sys.stderr, level=os.environ.get("GPUFLOW_DASK_LOG", "WARNING"), format="%(asctime)s %(name)s %(levelname)s %(message)s")
    emit = Writer(_protocol_stream())
    from .prestart import Prestart

    # Before the imports and the CUDA check below: the cluster's workers start meanwhile.
    prestart = Prestart.begin(os.environ.get("GPUFLOW_DASK_PRESTART"))
    # The CUDA check (a child process) runs while the versions are read.
    box: Dict[str, Any] = {}
    check = threading.Thread(target=lambda: box.update(status=capi_status()), name="gpuflow-capi-check", daemon=True)
    check.start()
    found = versions()
    check.join()
    trace.trace("capi-checked")
    ready = {"type": "ready", "protocol": PROTOCOL, "python": platform.python_version(), "versions": found, "capi": box["status"]}
    trace.trace("ready")  # before the line goes: main may read it at once
    emit(ready)
    inbox: "queue.Queue[Optional[str]]" = queue.Queue()

    def read() -> None:
        for line in sys.stdin:
            inbox.put(line)
        inbox.put(None)

    threading.Thread(target=read, name="gpuflow-stdin", daemon=True).start()
    bridge = Bridge(emit, prestart)
    try:
        while True:
            line = inbox.get()
            if line is None or not line.strip():
                if line is None:
                    break
                continue
            try:
                msg = parse(line)
            except BadMessage as e:
                emit(error(e.id, "bad-message", str(e)))
                continue
            try:
                if not bridge.handle(msg):
                    break
            except Exception as e:  # noqa: BLE001 - the bridge keeps running
                log.exception("handling %s", type(msg).__name__)
                emit(error(getattr(msg, "id", None), "internal", f"{type(e).__name__}: {e}"))
    finally:
        trace.trace("shutdown-received")
        if bridge.fast:
            from .fast_exit import close_fast

            close_fast(bridge)
            trace.trace("exit")
            # Nothing is left to flush but the streams: skip the interpreter's teardown of
            # distributed's threads and loops.
            sys.stderr.flush()
            os._exit(0)
        bridge.close()
        trace.trace("exit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
