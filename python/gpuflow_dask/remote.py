"""Functions run on Dask workers before our package is known to be there (client.run).

The bridge registers this module with cloudpickle's pickle-by-value, so these functions reach
a worker that cannot import gpuflow_dask; so they import nothing of ours at module level.
"""
from __future__ import annotations

import os
from typing import Any, Dict


def probe() -> Dict[str, Any]:
    """Whether gpuflow_dask (and its C-ABI library) load in this worker process, and its pid."""
    out: Dict[str, Any] = {"pid": os.getpid(), "gpuflow": False, "capi": False, "cuda": False, "why": ""}
    try:
        import gpuflow_dask.capi as capi  # noqa: PLC0415 - the point is to try
    except Exception as e:  # noqa: BLE001 - any failure means "not importable here"
        out["why"] = f"{type(e).__name__}: {e}"
        return out
    out["gpuflow"] = True
    out["capi"] = capi.load() is not None
    out["cuda"] = out["capi"] and capi.load_cuda() is not None
    out["why"] = capi.why() + ("; cuda: " + capi.cuda_why() if out["capi"] else "")
    return out
