"""The `filter` task on a Dask worker, for the conditions main/dask/supported.ts lets through:
comparisons of numeric arithmetic (columns, numbers, + - * / %), of a string column with a string
(or another string column), of a bool column with true / false; `in` lists and `is [not] null` on a
column; all joined by and / or / not.

The bridge sends the tree common/expr/parse.ts built (spec `ast`, main/dask/graph.ts), so there
is one parser. Semantics are worker/kernels/df/expr-eval.ts's: a comparison with a null is null,
NaN compares false (and is null for `is null`), strings order by UTF-16 code units (JavaScript's
<), and / or are Kleene's (a decisive operand wins over a null), and a row is kept when its
condition is true (not null). A timestamp column compares as ms since the epoch, a string beside it
(or in its `in` list) read as an ISO date by iso_time.py, as common/expr/check.ts reads it; the
tree arrives unchecked, so the column's type decides.
"""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

import numpy as np

from .assign_expr import NUMERIC
from .assign_expr import evaluate as arithmetic
from .iso_time import IsoUnsupported, parse_iso_ms
from .values import Column, Table

Vec = Tuple[np.ndarray, np.ndarray]  # values, valid
CMP = {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}
NUMERIC_NODES = {"num", "neg", "arith"}


class FilterUnsupported(ValueError):
    """A condition the worker does not evaluate (df.py turns it into unsupported-op)."""


def _valid(c: Column, rows: int) -> np.ndarray:
    return np.ones(rows, dtype=bool) if c.valid is None else np.asarray(c.valid, dtype=bool)


def _column(node: Dict[str, Any], t: Table) -> Column:
    return t.column(node["name"])


def _is_ts(node: Dict[str, Any], t: Table) -> bool:
    return node["kind"] == "col" and t.column(node["name"]).type.startswith("timestamp")


def _ms(text: Any) -> float:
    try:
        ms = parse_iso_ms(str(text))
    except IsoUnsupported as e:
        raise FilterUnsupported(f"filter: {e}") from None
    if ms is None:
        raise FilterUnsupported(f"filter: '{text}' is not an ISO date")
    return float(ms)


def _as_date(node: Dict[str, Any], other: Dict[str, Any], t: Table) -> Dict[str, Any]:
    """A string literal compared with a timestamp column, as the number of ms it names."""
    if node["kind"] == "str" and _is_ts(other, t):
        return {"kind": "num", "value": _ms(node["value"]), "isInt": True}
    return node


def _operand(node: Dict[str, Any], t: Table) -> Tuple[str, Any, np.ndarray]:
    """('num', float64 values, valid), ('str', keys, valid) or ('bool', values, valid)."""
    kind = node["kind"]
    if kind == "str":
        return "str", [node["value"].encode("utf-16-be")] * t.rows, np.ones(t.rows, dtype=bool)
    if kind == "bool":
        return "bool", np.full(t.rows, bool(node["value"])), np.ones(t.rows, dtype=bool)
    if kind == "col":
        c = _column(node, t)
        if c.type == "utf8":
            # UTF-16 big-endian bytes order as JavaScript compares strings (code units).
            return "str", [b"" if v is None else v.encode("utf-16-be") for v in c.data], _valid(c, t.rows)
        if c.type == "bool":
            return "bool", np.asarray(c.data, dtype=bool), _valid(c, t.rows)
        if c.type.startswith("timestamp"):
            return "num", np.asarray(c.data).astype(np.float64), _valid(c, t.rows)
        if c.type not in NUMERIC:
            raise FilterUnsupported(f"filter: column '{c.name}' of type {c.type}")
    elif kind not in NUMERIC_NODES:
        raise FilterUnsupported(f"filter: a '{kind}' operand")
    values, valid, _ = arithmetic(node, t)
    return "num", values, np.ones(t.rows, dtype=bool) if valid is None else valid


def _compare(op: str, a: Tuple[str, Any, np.ndarray], b: Tuple[str, Any, np.ndarray]) -> Vec:
    (ka, xa, va), (kb, xb, vb) = a, b
    if ka != kb:
        raise FilterUnsupported(f"filter: comparing a {ka} with a {kb}")
    if ka == "str":
        fn = CMP[op]
        return np.array([bool(fn(x, y)) for x, y in zip(xa, xb)], dtype=bool), va & vb
    with np.errstate(invalid="ignore"):
        return CMP[op](xa, xb), va & vb


def _members(node: Dict[str, Any], t: Table) -> Vec:
    kind, values, valid = _operand(node["arg"], t)
    items: List[Any] = [i["value"] for i in node["items"] if i["kind"] != "null"]
    if kind == "str":
        wanted = {str(i).encode("utf-16-be") for i in items}
        hit = np.array([v in wanted for v in values], dtype=bool)
    elif kind == "bool":
        hit = np.isin(values, [bool(i) for i in items])
    elif _is_ts(node["arg"], t):
        hit = np.isin(values, np.array([_ms(i) if isinstance(i, str) else float(i) for i in items], dtype=np.float64))
    else:
        hit = np.isin(values, np.array([float(i) for i in items], dtype=np.float64))
    # pandas' isin, as the local kernels: never null; a missing value is not in the list (NaN is not either).
    neg = bool(node["negated"])
    return np.where(valid, hit ^ neg, neg), np.ones(t.rows, dtype=bool)


def _is_null(node: Dict[str, Any], t: Table) -> Vec:
    if node["arg"]["kind"] != "col":
        raise FilterUnsupported("filter: 'is null' of an expression")
    c = _column(node["arg"], t)
    missing = ~_valid(c, t.rows)
    if c.type in NUMERIC:
        missing |= np.isnan(np.asarray(c.data, dtype=np.float64))
    return missing ^ bool(node["negated"]), np.ones(t.rows, dtype=bool)


def _bool(node: Dict[str, Any], t: Table) -> Vec:
    kind = node["kind"]
    if kind == "cmp":
        a, b = _as_date(node["a"], node["b"], t), _as_date(node["b"], node["a"], t)
        return _compare(node["op"], _operand(a, t), _operand(b, t))
    if kind == "in":
        return _members(node, t)
    if kind == "isnull":
        return _is_null(node, t)
    if kind == "not":
        v, valid = _bool(node["arg"], t)
        return ~v, valid
    if kind == "logic":
        (a, va), (b, vb) = _bool(node["a"], t), _bool(node["b"], t)
        if node["op"] == "and":
            # false (known) wins over null
            fa, fb = va & ~a, vb & ~b
            return a & b & va & vb, (va & vb) | fa | fb
        ta, tb = va & a, vb & b
        return ta | tb, (va & vb) | ta | tb
    raise FilterUnsupported(f"filter: a '{kind}' condition")


def _take(c: Column, mask: np.ndarray) -> Column:
    valid = None if c.valid is None else np.asarray(c.valid, dtype=bool)[mask]
    if c.type == "utf8":
        return Column(c.name, c.type, [v for v, k in zip(c.data, mask) if k], valid)
    return Column(c.name, c.type, np.asarray(c.data)[mask], valid)


def filter_table(t: Table, ast: Dict[str, Any]) -> Table:
    values, valid = _bool(ast, t)
    mask = values & valid
    return Table(int(mask.sum()), [_take(c, mask) for c in t.columns])
