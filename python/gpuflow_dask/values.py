"""What a task produces (common/arrays.ts ChunkValue) and how it goes on the wire (docs/dask.md).

Arrays are plain NumPy arrays; the other kinds are small dataclasses. Each registers a
``dask.sizeof`` so Dask's scheduling and the ``task`` events' ``nbytes`` see real sizes (the
registration runs wherever this module is imported, i.e. on every worker that unpickles one).
"""
from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Union

import numpy as np

from .device import to_host

# The fields of each reduction's partial, in the order every backend lays them out.
PARTIAL_FIELDS: Dict[str, List[str]] = {
    "sum": ["sum"],
    "mean": ["sum", "count"],
    "var": ["count", "mean", "m2"],
    "std": ["count", "mean", "m2"],
    "min": ["value"],
    "max": ["value"],
    "argmin": ["value", "index"],
    "argmax": ["value", "index"],
    "prod": ["value"],
    "nanprod": ["value"],
    "nanmin": ["value", "count"],
    "nanmax": ["value", "count"],
    "nanmean": ["sum", "count"],
}

# bool: one byte a value (0 / 1), as common/arrays.ts keeps it (a Uint8Array).
DTYPES = {"float64": np.float64, "float32": np.float32, "int32": np.int32, "int64": np.int64, "bool": np.bool_}


@dataclass
class Partial:
    """A reduction's partial: float64 fields of the reduced shape (common/arrays.ts Partial)."""

    op: str
    shape: List[int]
    fields: Dict[str, np.ndarray]
    # The exact int64 sum or product (int64, the reduced shape) where every block held integers
    # (int_program.py): the float64 field rounds above 2**53. Workers only: not on the wire.
    isum: Optional[np.ndarray] = None


@dataclass
class Column:
    """One table column. `data`: NumPy array (numeric, bool, timestamps as int64 ms) or a list of str|None (utf8)."""

    name: str
    type: str
    data: Union[np.ndarray, List[Optional[str]]]
    valid: Optional[np.ndarray] = None  # bool mask; None = no nulls


@dataclass
class Table:
    """A dataframe partition or partial aggregate, column-major, as the wire's `table` value."""

    rows: int
    columns: List[Column] = field(default_factory=list)

    def column(self, name: str) -> Column:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(f"table has no column {name!r} (columns: {[c.name for c in self.columns]})")


@dataclass
class Json:
    """A small structured result (summaries, tuning trials)."""

    value: Any


@dataclass
class Arrays:
    """Several named arrays from one task (a block QR's factor and R)."""

    arrays: Dict[str, np.ndarray]


Value = Union[np.ndarray, Partial, Table, Json, Arrays]


def _register_sizeof() -> None:
    """Tells Dask how big our values are (falls back silently where dask is absent)."""
    try:
        from dask.sizeof import sizeof
    except ImportError:  # a bare executor test without dask
        return

    @sizeof.register(Partial)
    def _partial(p: Partial) -> int:
        return 64 + sum(int(a.nbytes) for a in p.fields.values())

    @sizeof.register(Table)
    def _table(t: Table) -> int:
        n = 64
        for c in t.columns:
            n += int(c.data.nbytes) if isinstance(c.data, np.ndarray) else sum(len(s or "") + 8 for s in c.data)
            n += int(c.valid.nbytes) if c.valid is not None else 0
        return n

    @sizeof.register(Json)
    def _json(j: Json) -> int:
        return 64 + len(repr(j.value))

    @sizeof.register(Arrays)
    def _arrays(a: Arrays) -> int:
        return 64 + sum(int(x.nbytes) for x in a.arrays.values())


_register_sizeof()


def b64(a: np.ndarray) -> str:
    """Base64 of an array's little-endian C-order bytes."""
    a = np.ascontiguousarray(a)
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("<"))
    return base64.b64encode(a.tobytes()).decode("ascii")


def unb64(s: str, dtype: Any) -> np.ndarray:
    """The array of a base64 little-endian buffer (a copy, writable)."""
    raw = base64.b64decode(s, validate=True)
    dt = np.dtype(dtype).newbyteorder("<")
    if len(raw) % dt.itemsize:
        raise ValueError(f"{len(raw)} bytes is not a whole number of {dt.name} elements")
    return np.frombuffer(raw, dtype=dt).astype(np.dtype(dtype), copy=True)


def dtype_name(a: np.ndarray) -> str:
    """The wire dtype of an array; other dtypes are refused (they have no ChunkValue)."""
    for name, dt in DTYPES.items():
        if a.dtype == dt:
            return name
    raise TypeError(f"array dtype {a.dtype} has no wire form (float64, float32, int32, int64, bool)")


def _array_wire(a: np.ndarray) -> Dict[str, Any]:
    return {"dtype": dtype_name(a), "shape": [int(s) for s in a.shape], "data": b64(a)}


def to_wire(v: Value) -> Dict[str, Any]:
    """The protocol's `Value` of a task output (a device chunk as its host copy)."""
    v = to_host(v)
    if isinstance(v, np.ndarray):
        return {"kind": "array", **_array_wire(v)}
    if isinstance(v, Partial):
        return {"kind": "partial", "op": v.op, "shape": list(v.shape), "fields": {k: b64(np.asarray(f, np.float64)) for k, f in v.fields.items()}}
    if isinstance(v, Table):
        cols = []
        for c in v.columns:
            col: Dict[str, Any] = {"name": c.name, "type": c.type}
            if c.type == "utf8":
                col["values"] = list(c.data)
            else:
                data = np.asarray(c.data)
                col["data"] = b64(data.astype(np.uint8) if c.type == "bool" else data)
            if c.valid is not None and not bool(np.all(c.valid)):
                col["valid"] = b64(np.asarray(c.valid, dtype=np.uint8))
            cols.append(col)
        return {"kind": "table", "rows": int(v.rows), "columns": cols}
    if isinstance(v, Json):
        return {"kind": "json", "value": v.value}
    if isinstance(v, Arrays):
        return {"kind": "arrays", "arrays": {k: _array_wire(a) for k, a in v.arrays.items()}}
    raise TypeError(f"task output of type {type(v).__name__} has no wire form")


COLUMN_DTYPES = {"float64": np.float64, "float32": np.float32, "int32": np.int32, "int64": np.int64, "bool": np.uint8, "timestamp[ms]": np.int64}


def _array_from(w: Dict[str, Any], where: str) -> np.ndarray:
    dt = DTYPES.get(w.get("dtype"))  # type: ignore[arg-type]
    if dt is None:
        raise ValueError(f"{where}: unknown dtype {w.get('dtype')!r}")
    shape = [int(s) for s in w["shape"]]
    a = unb64(w["data"], dt)
    if a.size != int(np.prod(shape, dtype=np.int64)):
        raise ValueError(f"{where}: {a.size} elements for shape {shape}")
    return a.reshape(shape)


def from_wire(w: Dict[str, Any]) -> Value:
    """The value of a wire `Value` (tests and fixtures use it; the bridge only encodes)."""
    kind = w.get("kind")
    if kind == "array":
        return _array_from(w, "array value")
    if kind == "partial":
        shape = [int(s) for s in w["shape"]]
        return Partial(w["op"], shape, {k: unb64(f, np.float64).reshape(shape) for k, f in w["fields"].items()})
    if kind == "table":
        cols = []
        for c in w["columns"]:
            valid = unb64(c["valid"], np.uint8).astype(bool) if "valid" in c else None
            if c["type"] == "utf8":
                cols.append(Column(c["name"], "utf8", list(c["values"]), valid))
            else:
                data = unb64(c["data"], COLUMN_DTYPES[c["type"]])
                cols.append(Column(c["name"], c["type"], data.astype(bool) if c["type"] == "bool" else data, valid))
        return Table(int(w["rows"]), cols)
    if kind == "json":
        return Json(w["value"])
    if kind == "arrays":
        return Arrays({k: _array_from(a, f"arrays value {k!r}") for k, a in w["arrays"].items()})
    raise ValueError(f"unknown value kind {kind!r}")
