"""A local cluster started as the bridge starts, before main's `connect` names it.

`gpuflow run --dask local:N | local-cuda` spawns the bridge at the CLI's first lines with
GPUFLOW_DASK_PRESTART naming the target (main/dask/early.ts). The bridge then starts that cluster
in a thread at once, while it imports what its `ready` line reports and checks CUDA, and while
the CLI reads and compiles the workflow: the worker processes' start (each imports distributed,
~1 s) no longer waits for both (docs/dask.md, the phase trace); where the cluster forks its
workers from the forkserver (forkserver.py), that starts first. `connect` for the same target
takes it; any other target, or none, discards it.
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Dict, Optional, Tuple

from .address import read_target

log = logging.getLogger("gpuflow_dask")


class Prestart:
    def __init__(self, target: str, timeout_s: float) -> None:
        from . import forkserver
        from .cluster import start

        self.target = target
        self.box: Dict[str, Any] = {}

        def go() -> None:
            try:
                # The forkserver first: its imports run beside this thread's import of distributed.
                forkserver.start_early(target)
                self.box["value"] = start(target, timeout_s)
            except BaseException as e:  # noqa: BLE001 - re-raised by take()
                self.box["error"] = e

        self.thread = threading.Thread(target=go, name="gpuflow-prestart", daemon=True)
        self.thread.start()

    @staticmethod
    def begin(given: Optional[str], timeout_s: float = 60.0) -> Optional["Prestart"]:
        """A prestart for GPUFLOW_DASK_PRESTART's value when it names a local cluster, else None."""
        if not given:
            return None
        ok, target = read_target(given)
        if not ok or not target.startswith("local"):
            log.warning("GPUFLOW_DASK_PRESTART=%r is not a local cluster: nothing started early", given)
            return None
        return Prestart(target, timeout_s)

    def take(self) -> Tuple[Any, Optional[Any]]:
        """(client, cluster) once started (waits for it; its failure is raised here)."""
        self.thread.join()
        if "error" in self.box:
            raise self.box["error"]
        return self.box["value"]

    def discard(self) -> None:
        """Closes the cluster if it started (waits for its start first)."""
        self.thread.join()
        client, cluster = self.box.get("value", (None, None))
        for what, thing in (("client", client), ("cluster", cluster)):
            if thing is None:
                continue
            try:
                thing.close()
            except Exception as e:  # noqa: BLE001 - closing is best effort
                log.warning("closing the prestarted %s: %s", what, e)
