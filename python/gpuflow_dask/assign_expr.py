"""The `assign` task on a Dask worker, for the expressions main/dask/supported.ts lets through:
a column copied as it is, a number, or arithmetic (+ - * / % and unary minus) of numeric columns
and numbers.

The bridge sends each expression as the tree common/expr/parse.ts built (params `asts`,
main/dask/graph.ts), so there is one parser. Semantics are worker/kernels/df/expr-eval.ts's and
worker/kernels/df/ops.ts's assign: every value is computed in float64; a null operand gives a null;
% is the floored modulo, NaN for a zero divisor; the result is int64 (finite values truncated,
others 0, as build.ts intVector writes them) when every leaf is an integer and no '/' occurs
(common/expr/check.ts's rule), else float64; each expression sees the input table, not the
columns assigned beside it.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import numpy as np

from .values import Column, Table

INTS = {"int32", "int64"}
NUMERIC = INTS | {"float32", "float64"}
# values (float64), valid mask or None (no nulls), integer type
Vec = Tuple[np.ndarray, Optional[np.ndarray], bool]


def _valid_and(a: Optional[np.ndarray], b: Optional[np.ndarray]) -> Optional[np.ndarray]:
    if a is None:
        return b
    return a if b is None else a & b


def _floor_mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # JavaScript's a % b takes the dividend's sign; floorMod moves it to the divisor's (Python's %).
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.fmod(a, b)
        r = np.where((r != 0) & ((r < 0) != (b < 0)), r + b, r)
    return np.where(b == 0, np.nan, r)


ARITH = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}


def evaluate(node: Dict[str, Any], t: Table) -> Vec:
    """float64 values, valid mask (None: no nulls), and whether the result is an integer."""
    kind = node["kind"]
    if kind == "num":
        v = float(node["value"])
        return np.full(t.rows, v), None, bool(node.get("isInt")) and float(v).is_integer() and abs(v) <= 2**53 - 1
    if kind == "col":
        c: Column = t.column(node["name"])
        if c.type not in NUMERIC:
            raise ValueError(f"assign: column '{c.name}' is {c.type}; arithmetic takes numeric columns")
        return np.asarray(c.data).astype(np.float64), None if c.valid is None else np.asarray(c.valid, dtype=bool), c.type in INTS
    if kind == "neg":
        v, valid, is_int = evaluate(node["arg"], t)
        return -v, valid, is_int
    if kind == "arith":
        (a, va, ia), (b, vb, ib) = evaluate(node["a"], t), evaluate(node["b"], t)
        op = node["op"]
        if op == "%":
            out = _floor_mod(a, b)
        else:
            with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
                out = ARITH[op](a, b)
        return out, _valid_and(va, vb), ia and ib and op != "/"
    raise ValueError(f"assign: a '{kind}' expression is not evaluated by gpuflow_dask")


def _column(name: str, node: Dict[str, Any], t: Table) -> Column:
    if node["kind"] == "col":
        c = t.column(node["name"])
        return Column(name, c.type, c.data, c.valid)
    values, valid, is_int = evaluate(node, t)
    if valid is not None and valid.all():
        valid = None
    if is_int:
        return Column(name, "int64", np.where(np.isfinite(values), np.trunc(values), 0).astype(np.int64), valid)
    return Column(name, "float64", values, valid)


def assign(t: Table, asts: Dict[str, Dict[str, Any]]) -> Table:
    """`t` with each named column replaced (in place) or added (at the end), in the params' order."""
    made = [_column(name, node, t) for name, node in asts.items()]
    by_name = {c.name: c for c in made}
    out = [by_name.get(c.name, c) for c in t.columns]
    have = {c.name for c in t.columns}
    out += [c for c in made if c.name not in have]
    return Table(t.rows, out)
