"""A chunk program's expression evaluated from its JSON tree (common/arrays.ts Expr), in NumPy.

The flat program code (encode.py, the native interpreter's instruction set) has no comparisons
and no `where`; the local engine runs such programs on its js interpreter
(worker/kernels/js/program.ts), and this is a port of that interpreter's elementwise part: every
node evaluates into a buffer of the program's dtype (float32 buffers round after each operation,
computed in float64 as JavaScript does), comparisons give 1 / 0, `where` takes `a` where the
condition is non-zero (NaN counts as true), a `fill` leaf on the right of a binary op is applied
unrounded, and broadcasts re-index their argument. The reduction step is not here: the caller
folds the result (program.run with an input-leaf program).
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import program
from .encode import strides, unsupported_reason
from .philox import random32, random64, seed_key

UNARY: Dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "neg": np.negative,
    "abs": np.abs,
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "sin": np.sin,
    "cos": np.cos,
    "tanh": np.tanh,
    "square": lambda x: x * x,
    "round": np.round,  # halves to even, as the js roundHalfEven
    "isnan": np.isnan,
    "isfinite": np.isfinite,
    "floor": np.floor,
    "ceil": np.ceil,
}

BINARY: Dict[str, Callable[[np.ndarray, Any], np.ndarray]] = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "pow": np.power,
    "min": np.minimum,  # NaN-propagating, as the js min / max
    "max": np.maximum,
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}


def region_index(array_shape: Sequence[int], region: Dict[str, Any], shape: Sequence[int], what: str) -> np.ndarray:
    """The flat indices into an array of `array_shape` that `region` reads, as an array of `shape`."""
    count = [int(c) for c in region["count"]]
    if count != [int(s) for s in shape]:
        raise ValueError(f"{what}: region count {count} does not match block {list(shape)}")
    idx = np.zeros(tuple(count), dtype=np.int64)
    for d, (st, n, start, step) in enumerate(zip(strides(array_shape), count, region["start"], region["step"])):
        view = [1] * len(count)
        view[d] = n
        idx = idx + ((int(start) + np.arange(n, dtype=np.int64) * int(step)) * st).reshape(view)
    return idx


class Evaluator:
    def __init__(self, dtype: str, inputs: Sequence[Any]):
        self.ft = np.float32 if dtype == "float32" else np.float64
        self.inputs = inputs

    def leaf(self, leaf: Dict[str, Any], shape: List[int]) -> np.ndarray:
        kind = leaf["kind"]
        if kind == "fill":
            return np.full(tuple(shape), float(leaf["value"]), dtype=self.ft)
        if kind == "random":
            idx = region_index(leaf["shape"], leaf["region"], shape, "random leaf")
            k0, k1 = seed_key(int(leaf["seed"]))
            gen = random32 if self.ft == np.float32 else random64
            return np.asarray(gen(idx, leaf["dist"] == "normal", k0, k1, float(leaf["a"]), float(leaf["b"])), dtype=self.ft)
        if kind == "arange":
            idx = region_index(leaf["shape"], leaf["region"], shape, "arange leaf")
            return (float(leaf["start"]) + float(leaf["step"]) * idx.astype(np.float64)).astype(self.ft)
        if kind == "input":
            dep = int(leaf["dep"])
            src = self.inputs[dep] if dep < len(self.inputs) else None
            if not isinstance(src, np.ndarray):
                raise ValueError(f"input leaf: dependency {dep} is not an array")
            idx = region_index(src.shape, leaf["region"], shape, "input leaf")
            return src.reshape(-1).astype(np.float64)[idx].astype(self.ft)
        raise ValueError(f"unknown leaf kind {kind!r}")

    def done(self, x: Any, shape: List[int]) -> np.ndarray:
        """An operation's result stored in a buffer of the program's dtype (float32 rounds here)."""
        return np.asarray(x, dtype=np.float64).astype(self.ft).reshape(tuple(shape))

    def expr(self, e: Dict[str, Any], shape: List[int]) -> np.ndarray:
        kind = e["kind"]
        with np.errstate(all="ignore"):
            if kind == "leaf":
                return self.leaf(e["leaf"], shape)
            if kind == "unary":
                f = UNARY.get(e["op"])
                if f is None:
                    raise ValueError(f"unknown unary op {e['op']!r}")
                return self.done(f(self.expr(e["arg"], shape).astype(np.float64)), shape)
            if kind == "clip":
                x = self.expr(e["arg"], shape).astype(np.float64)
                return self.done(np.where(np.isnan(x), x, np.minimum(np.maximum(x, float(e["lo"])), float(e["hi"]))), shape)
            if kind == "binary":
                f = BINARY.get(e["op"])
                if f is None:
                    raise ValueError(f"unknown binary op {e['op']!r}")
                a = self.expr(e["a"], shape).astype(np.float64)
                b_node = e["b"]
                fill = b_node["kind"] == "leaf" and b_node["leaf"]["kind"] == "fill"
                b = float(b_node["leaf"]["value"]) if fill else self.expr(b_node, shape).astype(np.float64)
                return self.done(f(a, b), shape)
            if kind == "where":
                c = self.expr(e["cond"], shape)
                a = self.expr(e["a"], shape)
                b = self.expr(e["b"], shape)
                return np.where(c != 0, a, b).astype(self.ft)
            if kind == "broadcast":
                return self.broadcast(e, shape)
        raise ValueError(f"unknown expression kind {kind!r}")

    def broadcast(self, e: Dict[str, Any], to: List[int]) -> np.ndarray:
        frm = [int(s) for s in e["from"]]
        axes = e.get("axes")
        x = self.expr(e["arg"], frm).reshape(-1)
        nd = len(to)
        src_strides = [0] * nd
        s = 1
        for d in range(len(frm) - 1, -1, -1):
            o = int(axes[d]) if axes is not None else d + nd - len(frm)
            if o < -1 or o >= nd or (o >= 0 and frm[d] != 1 and frm[d] != to[o]) or (o == -1 and frm[d] != 1):
                raise ValueError(f"broadcast: cannot broadcast {frm} (axes {axes}) to {to}")
            if o >= 0 and frm[d] != 1:
                src_strides[o] += s
            s *= frm[d]
        idx = np.zeros(tuple(to), dtype=np.int64)
        for d, (n, st) in enumerate(zip(to, src_strides)):
            if st:
                view = [1] * nd
                view[d] = n
                idx = idx + (np.arange(n, dtype=np.int64) * st).reshape(view)
        return x[idx] if x.size else np.zeros(tuple(to), dtype=self.ft)


def evaluate(program: Dict[str, Any], inputs: Sequence[Any], dtype: str = "float64") -> np.ndarray:
    """The elementwise result of `program` (before any reduction), float64 or float32, of its shape."""
    shape = [int(s) for s in program["shape"]]
    return Evaluator(dtype, inputs).expr(program["expr"], shape).reshape(tuple(shape))


def needs_tree(prog: Dict[str, Any]) -> bool:
    """A program the flat code cannot express (comparisons, where, beyond its limits)."""
    return unsupported_reason(prog) is not None


def fold(values: np.ndarray, red: Optional[Dict[str, Any]], threads: int = 1) -> Any:
    """The reduction's chunk step over an evaluated block, as a program reading it (the C library
    or NumPy, as float programs reduce), or the block itself without a reduction."""
    if red is None:
        return values
    shape = [int(s) for s in values.shape]
    whole = {"start": [0] * len(shape), "step": [1] * len(shape), "count": shape}
    reader = {"dtype": "float64", "shape": shape, "expr": {"kind": "leaf", "leaf": {"kind": "input", "dep": 0, "region": whole}}, "reduce": red}
    return program.run({"kind": "program", "program": reader}, [values], threads)[0]


def run(spec: Dict[str, Any], inputs: Sequence[Any], threads: int = 1) -> Tuple[Any, str]:
    """Runs a float `program` spec from its tree; returns (value, backend)."""
    prog = spec["program"]
    return fold(evaluate(prog, inputs, prog["dtype"]), prog.get("reduce"), threads), "numpy"
