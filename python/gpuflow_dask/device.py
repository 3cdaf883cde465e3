"""Chunks that stay on a GPU worker's device between tasks.

On a worker where the CUDA kernel library loads (capi.load_cuda) and CuPy imports, a fused chunk
program without a reduction writes its output into a CuPy array and returns it wrapped in a
`DeviceChunk`: the next program on that worker reads it in place (no download, no upload), as the
local engine's resident blocks do. Everything else sees host values:

- a transfer to another worker, a spill to disk and the gather to the client pickle the chunk, and
  its pickle IS the host NumPy array's (`__reduce_ex__`), so the receiver gets a plain
  `numpy.ndarray` whether or not it has CuPy or a GPU (a CPU worker, the bridge, an exported
  script); a GPU receiver uploads it again where a program reads it;
- the array, dataframe and combine handlers get `to_host(v)` of their inputs (execute.py);
- the bridge's result message converts with `to_host` too (values.to_wire), for an in-process
  cluster whose objects are never pickled.

GPUFLOW_DASK_DEVICE=cpu turns the device path off (capi.load_cuda answers None).
"""
from __future__ import annotations

import os
import threading
from typing import Any, Optional, Tuple

import numpy as np

# (cupy module or None, why not): looked for once per process, on first use.
_found: Optional[Tuple[Optional[Any], str]] = None
# The warm-up thread (warm.py) may be importing CuPy when the first task asks for it.
_look_lock = threading.Lock()


def _look() -> Tuple[Optional[Any], str]:
    if os.environ.get("GPUFLOW_DASK_DEVICE") == "cpu":
        return None, "disabled by GPUFLOW_DASK_DEVICE=cpu"
    try:
        import cupy as cp  # noqa: PLC0415 - optional: only GPU workers have it

        return (cp, "") if cp.cuda.runtime.getDeviceCount() >= 1 else (None, "cupy sees no device")
    except Exception as e:  # noqa: BLE001 - any failure means "no device arrays here"
        return None, f"cupy: {type(e).__name__}: {e}"


def cupy() -> Optional[Any]:
    """The cupy module when it imports and sees a device, else None (`why()` says why)."""
    global _found
    if _found is None:
        with _look_lock:
            if _found is None:
                _found = _look()
    return _found[0]


def why() -> str:
    cupy()
    return _found[1] if _found else ""


class DeviceChunk:
    """A chunk in device memory (a CuPy array of the chunk's shape) that a task returned."""

    __slots__ = ("array",)

    def __init__(self, array: Any) -> None:
        self.array = array

    @property
    def nbytes(self) -> int:
        return int(self.array.nbytes)

    @property
    def shape(self) -> tuple:
        return tuple(self.array.shape)

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(self.array.dtype)

    def host(self) -> np.ndarray:
        """A host copy (NumPy)."""
        return np.asarray(self.array.get())

    def __sizeof__(self) -> int:  # dask.sizeof: what the worker's memory accounting counts
        return self.nbytes

    def __reduce_ex__(self, protocol: Any) -> Any:
        # Pickled as the host array itself: whoever unpickles gets numpy, CuPy or not.
        return self.host().__reduce_ex__(protocol)

    def __repr__(self) -> str:
        return f"<DeviceChunk {self.dtype} {list(self.shape)}>"


def to_host(v: Any) -> Any:
    """`v` with a device chunk copied to host (anything else unchanged)."""
    return v.host() if isinstance(v, DeviceChunk) else v
