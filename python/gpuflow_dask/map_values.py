"""pandas' s.map(dict) as worker/kernels/df/map-values.ts does it: each value of a column looked
up in the mapping by its text (a string as it is, a number as JavaScript's String() of it, so
{"1": "one"} maps the int 1); a value the mapping lacks, a null and a NaN give null. The new
column has the spec's type (int truncates, as intVector does)."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np

from .columns import require
from .jsnum import js_string
from .missing import missing_mask
from .values import Column, Table

NUMERIC = ("int32", "int64", "float32", "float64")


def _lookup(c: Column, mapping: Dict[str, Any]) -> List[Any]:
    if c.type == "utf8":
        return [None if v is None else mapping.get(v) for v in c.data]
    if c.type not in NUMERIC:
        raise ValueError(f"map: column '{c.name}' is {c.type}; map takes a string or number column")
    miss = missing_mask(c).tolist()
    return [None if m else mapping.get(js_string(v)) for v, m in zip(np.asarray(c.data, dtype=np.float64).tolist(), miss)]


def map_values(t: Table, spec: Dict[str, Any]) -> Table:
    require(t, [spec["column"]], "map")
    got = _lookup(t.column(spec["column"]), spec["mapping"])
    ok = np.array([x is not None for x in got], dtype=bool)
    valid: Optional[np.ndarray] = None if ok.all() else ok
    name = spec.get("as") or spec["column"]
    kind = spec["type"]
    if kind == "string":
        col = Column(name, "utf8", [None if x is None else x if isinstance(x, str) else js_string(x) for x in got])
    elif kind == "bool":
        col = Column(name, "bool", np.array([x is True for x in got], dtype=bool), valid)
    else:
        x = np.array([float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0.0 for v in got], dtype=np.float64)
        if kind == "int":
            col = Column(name, "int64", np.trunc(np.where(np.isfinite(x), x, 0.0)).astype(np.int64), valid)
        else:
            col = Column(name, "float64", x, valid)
    cols = [col if c.name == name else c for c in t.columns]
    if not any(c.name == name for c in t.columns):
        cols.append(col)
    return Table(t.rows, cols)
