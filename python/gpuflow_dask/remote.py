"""Functions run on Dask workers before our package is known to be there (client.run).

The bridge registers this module with cloudpickle's pickle-by-value, so these functions reach
a worker that cannot import gpuflow_dask; so they import nothing of ours at module level.
"""
from __future__ import annotations

import os
from typing import Any, Dict


def probe(dask_worker: Any = None) -> Dict[str, Any]:
    """Whether gpuflow_dask (and its C-ABI library) load in this worker process, its pid and its
    directory (Client.run passes the worker as `dask_worker`)."""
    out: Dict[str, Any] = {"pid": os.getpid(), "gpuflow": False, "capi": False, "cuda": False, "why": ""}
    if dask_worker is not None:
        out["dir"] = str(dask_worker.local_directory)
    try:
        import gpuflow_dask.capi as capi  # noqa: PLC0415 - the point is to try
    except Exception as e:  # noqa: BLE001 - any failure means "not importable here"
        out["why"] = f"{type(e).__name__}: {e}"
        return out
    out["gpuflow"] = True
    out["capi"] = capi.load() is not None
    out["cuda"] = out["capi"] and capi.load_cuda() is not None
    out["why"] = capi.why() + ("; cuda: " + capi.cuda_why() if out["capi"] else "")
    out["visible"] = os.environ.get("CUDA_VISIBLE_DEVICES")
    if out["cuda"]:
        # Device-resident chunks need CuPy and the library's device entry (device.py). CuPy is
        # looked for, not imported: importing it costs a second at connect.
        import importlib.util  # noqa: PLC0415

        lib = capi.load_cuda()
        entry = lib is not None and capi.takes_device_inputs(lib)
        found = importlib.util.find_spec("cupy") is not None
        out["resident"] = entry and found
        if not out["resident"]:
            out["why"] += "; chunks on the host: " + ("CuPy is not installed" if entry else "the CUDA library has no gf_cuda_run_program_on")
    return out


def package_plugin(zipped: bytes) -> Any:
    """A WorkerPlugin that makes gpuflow_dask importable on every worker, those that join later
    included (the scheduler hands its plugins to each new worker): where the package is not
    importable, the zip is written into the worker's directory and put on sys.path. The class is
    made here, inside a function, so cloudpickle sends it by value."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class GpuflowPackage(WorkerPlugin):  # type: ignore[misc]
        name = "gpuflow-dask-package"

        def __init__(self, data: bytes) -> None:
            self.data = data

        def setup(self, worker: Any) -> None:
            import importlib
            import importlib.util
            import sys

            if importlib.util.find_spec("gpuflow_dask") is None:
                path = os.path.join(str(worker.local_directory), "gpuflow_dask.zip")
                with open(path, "wb") as f:
                    f.write(self.data)
                sys.path.insert(0, path)
                importlib.invalidate_caches()
            # The warm-up (once per process; a worker gpuflow started began it at its start).
            try:
                import gpuflow_dask.warm as warm

                name = getattr(worker, "name", None)
                warm.start("" if name is None else str(name))
            except Exception:  # noqa: BLE001 - the first task then loads what it needs itself
                pass

    return GpuflowPackage(zipped)
