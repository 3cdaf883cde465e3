"""`from-array` on a worker, as worker/kernels/df/from-array.ts: a 1-D array is one column
('value'), a 2-D array (rows, k) k columns ('c0', 'c1', ...); int32 stays int32, int64 becomes
int64 through float64 (intVector), floats become float64."""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from .values import Column, Table


def from_array(arr: np.ndarray, columns: Optional[Sequence[str]] = None) -> Table:
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"from array: the input must be an array, got a {type(arr).__name__}")
    if arr.ndim not in (1, 2):
        raise ValueError(f"from array: needs a 1-D or 2-D array, got shape [{', '.join(str(s) for s in arr.shape)}]")
    rows = arr.shape[0]
    k = 1 if arr.ndim == 1 else arr.shape[1]
    names = list(columns) if columns else (["value"] if k == 1 else [f"c{j}" for j in range(k)])
    if len(names) != k:
        raise ValueError(f"from array: {len(names)} column names given for {k} columns")
    if len(set(names)) != k:
        raise ValueError("from array: column names must differ")
    grid = arr.reshape(rows, k)
    cols = []
    for j, name in enumerate(names):
        x = grid[:, j]
        if arr.dtype == np.int32:
            cols.append(Column(name, "int32", x.copy()))
        elif arr.dtype == np.int64:
            f = x.astype(np.float64)
            cols.append(Column(name, "int64", np.where(np.isfinite(f), np.trunc(f), 0).astype(np.int64)))
        else:
            cols.append(Column(name, "float64", x.astype(np.float64)))
    return Table(rows, cols)
