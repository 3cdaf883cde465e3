"""The `filter` task on a Dask worker, for the expressions main/dask/supported.ts lets through:
comparisons of numeric columns and number literals joined by and / or / not.

The bridge sends the tree common/expr/parse.ts built (spec `ast`, main/dask/graph.ts), so there
is one parser. Semantics are worker/kernels/df/expr-eval.ts's: a comparison with a null is null,
NaN compares false, and / or are Kleene's (a decisive operand wins over a null), and a row is
kept when its condition is true (not null).
"""
from __future__ import annotations

from typing import Any, Dict, Tuple

import numpy as np

from .values import Column, Table

Vec = Tuple[np.ndarray, np.ndarray]  # values, valid
NUMERIC = {"int32", "int64", "float32", "float64"}
CMP = {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}


def _operand(node: Dict[str, Any], t: Table) -> Vec:
    kind = node["kind"]
    if kind == "num":
        return np.full(t.rows, float(node["value"])), np.ones(t.rows, dtype=bool)
    if kind == "neg" and node["arg"]["kind"] == "num":
        return np.full(t.rows, -float(node["arg"]["value"])), np.ones(t.rows, dtype=bool)
    if kind == "col":
        c: Column = t.column(node["name"])
        if c.type not in NUMERIC:
            raise ValueError(f"filter: column '{c.name}' is {c.type}; gpuflow_dask compares numeric columns only")
        valid = np.ones(t.rows, dtype=bool) if c.valid is None else np.asarray(c.valid, dtype=bool)
        return np.asarray(c.data).astype(np.float64), valid
    raise ValueError(f"filter: a '{kind}' operand is not evaluated by gpuflow_dask")


def _bool(node: Dict[str, Any], t: Table) -> Vec:
    kind = node["kind"]
    if kind == "cmp":
        (a, va), (b, vb) = _operand(node["a"], t), _operand(node["b"], t)
        with np.errstate(invalid="ignore"):
            return CMP[node["op"]](a, b), va & vb
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
    raise ValueError(f"filter: a '{kind}' condition is not evaluated by gpuflow_dask")


def _take(c: Column, mask: np.ndarray) -> Column:
    valid = None if c.valid is None else np.asarray(c.valid, dtype=bool)[mask]
    if c.type == "utf8":
        return Column(c.name, c.type, [v for v, k in zip(c.data, mask) if k], valid)
    return Column(c.name, c.type, np.asarray(c.data)[mask], valid)


def filter_table(t: Table, ast: Dict[str, Any]) -> Table:
    values, valid = _bool(ast, t)
    mask = values & valid
    return Table(int(mask.sum()), [_take(c, mask) for c in t.columns])
