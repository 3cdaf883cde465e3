"""The `npy-read` array op on a Dask worker (worker/kernels/arrays/npy-handlers.ts readNpyBlock):
a block reads only its rows, one contiguous byte range in C order, then keeps its columns. The
path was checked by the compiler on main; sources.py asks a worker up front whether it sees it."""
from __future__ import annotations

import os
from typing import Any, Dict, Tuple

import numpy as np

DTYPES = {"float64": "<f8", "float32": "<f4", "int32": "<i4", "int64": "<i8"}


def read_block(p: Dict[str, Any]) -> np.ndarray:
    dt = np.dtype(DTYPES[p["dtype"]])
    file_shape, shape, start = list(p["fileShape"]), list(p["shape"]), list(p["start"])
    nd = len(file_shape)
    row_elems = int(np.prod(file_shape[1:], dtype=np.int64)) if nd else 1
    rows = shape[0] if nd else 1
    row0 = start[0] if nd else 0
    with open(p["path"], "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size != p["fileBytes"]:
            raise ValueError(f"load_npy: {p['path']} changed since the workflow was compiled ({p['fileBytes']} bytes then, {size} now)")
        f.seek(int(p["dataStart"]) + row0 * row_elems * dt.itemsize)
        raw = f.read(rows * row_elems * dt.itemsize)
    if len(raw) != rows * row_elems * dt.itemsize:
        raise ValueError(f"load_npy: {p['path']} ended early")
    whole = np.frombuffer(raw, dtype=dt).astype(dt.newbyteorder("="), copy=True)
    if nd == 0:
        return whole.reshape(())
    whole = whole.reshape([rows, *file_shape[1:]])
    cut = tuple([slice(None)] + [slice(s, s + n) for s, n in zip(start[1:], shape[1:])])
    return np.ascontiguousarray(whole[cut])


def handler(p: Dict[str, Any], inputs: Tuple[Any, ...], t: Any) -> np.ndarray:
    return read_block(p)
