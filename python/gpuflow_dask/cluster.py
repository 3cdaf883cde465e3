"""Connecting to a Dask cluster: an existing scheduler, a LocalCluster or a LocalCUDACluster;
worker descriptions; and shipping this package to workers that lack it.

APIs used (present in distributed 2022.12 and 2026.x): Client(address, timeout=),
LocalCluster(n_workers=, threads_per_worker=, processes=, dashboard_address=),
Client.scheduler_info(), Client.run(), Client.register_worker_plugin() (register_plugin where
present), Client.get_versions(check=False).
"""
from __future__ import annotations

import io
import logging
import os
import zipfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from . import forkserver, trace
from .messages import WorkerInfo

from .warm import PRELOAD as WARM_PRELOAD

log = logging.getLogger("gpuflow_dask")


class ConnectError(Exception):
    """A connect that failed; `code` is the protocol's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def quiet_nvml() -> None:
    """distributed < 2023 dies in its NVML diagnostics with a current pynvml (str names, where
    2022.12 calls .decode()): switch them off for the clusters we start (workers inherit it)."""
    import dask
    import distributed

    if int(distributed.__version__.split(".")[0]) < 2023:
        os.environ["DASK_DISTRIBUTED__DIAGNOSTICS__NVML"] = "False"
        dask.config.set({"distributed.diagnostics.nvml": False})


def security(target: str, tls: Optional[Dict[str, str]]) -> Optional[Any]:
    """distributed.security.Security for a tls:// scheduler (CA, client certificate and key)."""
    if not target.startswith("tls://"):
        if tls is not None:
            raise ConnectError("internal", f"TLS files were given for {target}, which is not a tls:// address")
        return None
    if tls is None:
        raise ConnectError("internal", f"{target} needs a CA, a client certificate and its key (gpuflow: --dask-tls-ca, --dask-tls-cert, --dask-tls-key)")
    for what, path in tls.items():
        if not os.path.isfile(path):
            raise ConnectError("internal", f"the TLS {what} file {path} does not exist")
    from distributed.security import Security

    return Security(tls_ca_file=tls["ca"], tls_client_cert=tls["cert"], tls_client_key=tls["key"], require_encryption=True)


def start(target: str, timeout_s: float, tls: Optional[Dict[str, str]] = None) -> Tuple[Any, Optional[Any]]:
    """(client, cluster or None) for a target of the connect message."""
    try:
        from distributed import Client, LocalCluster
    except ImportError as e:
        raise ConnectError("no-distributed", f"Python package 'distributed' is not importable ({e}); install dask's distributed (Debian: apt install python3-distributed)") from None
    trace.trace("distributed-imported")
    quiet_nvml()
    if target.startswith("local:"):
        n = int(target.split(":", 1)[1])
        cores = os.cpu_count() or 1
        if not 1 <= n <= cores:
            raise ConnectError("internal", f"local:{n}: this machine has {cores} cores; use local:1 to local:{cores}")
        forkserver.use(target)
        # Loopback only: the scheduler, the nannies, the workers and the dashboard (which has no
        # authentication) answer on 127.0.0.1, never on the machine's other interfaces.
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0", worker_dashboard_address="127.0.0.1:0", preload=WARM_PRELOAD)
        trace.trace("cluster-started")
        return Client(cluster, timeout=timeout_s), cluster
    if target == "local-cuda":
        return _local_cuda(timeout_s)
    sec = security(target, tls)
    try:
        return (Client(target, timeout=timeout_s, security=sec) if sec is not None else Client(target, timeout=timeout_s)), None
    except (OSError, TimeoutError) as e:
        raise ConnectError("unreachable", f"Dask scheduler {target} is unreachable within {timeout_s:g} s ({type(e).__name__}: {e})") from None


def _local_cuda(timeout_s: float) -> Tuple[Any, Any]:
    """dask-cuda's LocalCUDACluster where installed; else one pinned Nanny per visible GPU."""
    from distributed import Client

    try:
        from dask_cuda import LocalCUDACluster
    except ImportError:
        LocalCUDACluster = None
    if LocalCUDACluster is not None:
        cluster = LocalCUDACluster(threads_per_worker=1, host="127.0.0.1", dashboard_address="127.0.0.1:0", preload=WARM_PRELOAD)
        trace.trace("cluster-started")
        return Client(cluster, timeout=timeout_s), cluster
    from .cuda_cluster import start_cuda_cluster, visible_gpus

    gpus = visible_gpus()
    if not gpus:
        raise ConnectError("local-cuda-missing", "local-cuda: no GPU is visible here (CUDA_VISIBLE_DEVICES is empty or unset and nvidia-smi lists none); use local:N")
    trace.trace("gpus-listed")
    forkserver.use("local-cuda")
    cluster = start_cuda_cluster(gpus)
    trace.trace("cluster-started")
    return Client(cluster, timeout=timeout_s), cluster


def check_versions(client: Any) -> None:
    """Refuses a scheduler whose distributed release differs from ours by year.month (wire formats change)."""
    import distributed

    v = client.get_versions(check=False)
    theirs = (v.get("scheduler") or {}).get("packages", {}).get("distributed")
    ours = distributed.__version__
    if theirs and theirs.split(".")[:2] != ours.split(".")[:2]:
        raise ConnectError("version", f"the scheduler runs distributed {theirs}, this bridge {ours}: use the same release on both (e.g. GPUFLOW_PYTHON pointing at a matching environment)")


def package_zip() -> bytes:
    """This package as a zip (importable from sys.path), without caches and tests; its JSON
    (protocol.json, which messages.py reads) included."""
    root = Path(__file__).resolve().parent
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for p in sorted([*root.rglob("*.py"), *root.rglob("*.json")]):
            z.write(p, f"gpuflow_dask/{p.relative_to(root)}")
    return buf.getvalue()


def ship(client: Any, probes: Dict[str, Dict[str, Any]]) -> Dict[str, Dict[str, Any]]:
    """Registers the package plugin (remote.package_plugin): workers that cannot import
    gpuflow_dask get it now, and so does every worker that joins later; returns fresh probes
    where some worker lacked it."""
    from . import remote

    _by_value(remote)
    plugin = remote.package_plugin(package_zip())
    try:
        register = getattr(client, "register_plugin", None)  # distributed >= 2023.9
        if register is not None:
            register(plugin, name=plugin.name)
        else:
            client.register_worker_plugin(plugin, name=plugin.name)
    except Exception as e:  # noqa: BLE001 - reported through the probes below
        log.warning("registering the gpuflow_dask package plugin failed: %s", e)
    if all(p.get("gpuflow") for p in probes.values()):
        return probes
    return probe_all(client)


def _by_value(module: Any) -> None:
    """Functions of `module` travel to workers by value (they may lack gpuflow_dask)."""
    import cloudpickle

    try:
        cloudpickle.register_pickle_by_value(module)
    except (AttributeError, ValueError):  # cloudpickle < 2 or already registered
        pass


def probe_all(client: Any) -> Dict[str, Dict[str, Any]]:
    """remote.probe on every worker, by address."""
    from . import remote

    _by_value(remote)
    try:
        return client.run(remote.probe, on_error="return")
    except TypeError:  # distributed without on_error
        return client.run(remote.probe)


def scheduler_info(client: Any) -> Dict[str, Any]:
    """Client.scheduler_info() with every worker (some releases list only the first 5 by default)."""
    import inspect

    if "n_workers" in inspect.signature(client.scheduler_info).parameters:
        return client.scheduler_info(n_workers=-1)
    return client.scheduler_info()


def describe(client: Any, probes: Dict[str, Dict[str, Any]]) -> List[WorkerInfo]:
    """The protocol's Worker objects, from the scheduler's view and the probes."""
    workers = scheduler_info(client).get("workers", {})
    out: List[WorkerInfo] = []
    for addr, w in sorted(workers.items(), key=lambda kv: str(kv[1].get("name"))):
        out.append(worker_info(addr, w, probes.get(addr)))
    return out


def worker_info(addr: str, w: Dict[str, Any], probe: Optional[Dict[str, Any]]) -> WorkerInfo:
    gpu = w.get("gpu") or {}
    gpus = [{"name": str(gpu.get("name", "gpu")), "memory": int(gpu.get("memory-total", 0) or 0)}] if gpu else []
    ok = isinstance(probe, dict)
    return {
        "name": str(w.get("name", addr)),
        "address": addr,
        "host": str(w.get("host", "")),
        "pid": int(probe["pid"]) if ok and "pid" in probe else None,  # type: ignore[index]
        "nthreads": int(w.get("nthreads", 1)),
        "memory_limit": int(w.get("memory_limit") or 0),
        "gpus": gpus,  # type: ignore[typeddict-item]
        "gpuflow": bool(ok and probe.get("gpuflow")),  # type: ignore[union-attr]
    }
