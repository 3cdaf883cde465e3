"""Threads the C kernels may use in one task (GPUFLOW_CAPI_THREADS, default 1: a Dask worker's
own threads are the parallelism, and each LocalCluster worker is one process per core)."""
from __future__ import annotations

import os


def threads() -> int:
    try:
        return max(1, int(os.environ.get("GPUFLOW_CAPI_THREADS", "1")))
    except ValueError:
        return 1
