"""Shared test helpers: the js fixtures and the repo's python/ on sys.path."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Dict

import numpy as np

PYTHON_DIR = Path(__file__).resolve().parents[1]
if str(PYTHON_DIR) not in sys.path:
    sys.path.insert(0, str(PYTHON_DIR))

from gpuflow_dask.values import Arrays, Partial, Table, from_wire  # noqa: E402

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def fixture(name: str) -> Dict[str, Any]:
    """A graph and every task's js value (fixtures/make_fixtures.ts wrote it)."""
    return json.loads((FIXTURES / f"{name}.json").read_text())


def arrays_of(v: Any) -> Dict[str, np.ndarray]:
    """The numeric arrays of a value by name, for comparisons (strings as object arrays)."""
    if isinstance(v, np.ndarray):
        return {"": v}
    if isinstance(v, Partial):
        return {k: np.asarray(f).reshape(v.shape) for k, f in v.fields.items()}
    if isinstance(v, Arrays):
        return dict(v.arrays)
    if isinstance(v, Table):
        out = {"#rows": np.array([v.rows])}
        for c in v.columns:
            out[c.name] = np.array(c.data, dtype=object) if c.type == "utf8" else np.asarray(c.data)
            if c.valid is not None and not np.all(c.valid):  # all-valid is sent without a mask
                out[c.name + "#valid"] = np.asarray(c.valid, bool)
        return out
    raise TypeError(type(v).__name__)


def canonical(v: Any) -> Any:
    """A groupby partial with its rows sorted by its key columns: the row order of a partial is
    internal (the js kernel numbers string keys by dictionary, ours by first occurrence) and
    changes no number, since each group's sums run in row order either way."""
    if not isinstance(v, Table) or not any("::" in c.name for c in v.columns):
        return v
    from gpuflow_dask.groupby import sort_rows, take

    keys = [c.name for c in v.columns if "::" not in c.name]
    order = sort_rows(v, keys)
    return Table(v.rows, [take(c, order) for c in v.columns])


def js_value(fx: Dict[str, Any], key: str) -> Any:
    return from_wire(fx["values"][key])
