"""A ChunkProgram (common/arrays.ts) to the flat float64 code native/src/program.h decodes: a
port of native/program-code.ts, for `program` specs that arrive without `code` (main encodes
only where it knows every input's shape; here the inputs are in hand). The fixtures check that
this gives the very code the TypeScript encoder gives.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import numpy as np

UNARY = ["neg", "abs", "exp", "log", "sqrt", "sin", "cos", "tanh", "square", "round", "isnan", "isfinite", "floor", "ceil"]
BINARY = ["add", "sub", "mul", "div", "pow", "min", "max", "eq", "ne", "lt", "le", "gt", "ge"]
REDUCE = ["none", "sum", "mean", "var", "std", "min", "max", "argmin", "argmax", "prod", "nanprod", "nanmin", "nanmax", "nanmean"]
LIMITS = {"dims": 8, "instructions": 48, "leaves": 16, "stack": 16}


class Unsupported(Exception):
    """An expression the native instruction set has no instruction for."""


class Unencodable(Exception):
    """The native interpreter cannot take this program (dtype, limits)."""


def strides(shape: Sequence[int]) -> List[int]:
    out = [0] * len(shape)
    acc = 1
    for d in range(len(shape) - 1, -1, -1):
        out[d] = acc
        acc *= int(shape[d])
    return out


def unsupported_reason(program: Dict[str, Any]) -> Optional[str]:
    """Why the native interpreter cannot run `program`, or None."""
    if program.get("dtype") not in ("float64", "float32"):
        return f"dtype {program.get('dtype')}"
    shape = program["shape"]
    if len(shape) > LIMITS["dims"]:
        return f"more than {LIMITS['dims']} dimensions"
    red = program.get("reduce")
    if red and red.get("axis") is not None and len(shape) == 0:
        return "axis reduction of a 0-d program"
    counts = {"instructions": 0, "leaves": 0}

    def depth(e: Dict[str, Any]) -> int:
        counts["instructions"] += 1
        k = e["kind"]
        if k == "leaf":
            leaf = e["leaf"]
            if leaf["kind"] != "fill":
                counts["leaves"] += 1
                if len(leaf["region"]["count"]) > LIMITS["dims"]:
                    raise Unencodable("dims")
            return 1
        if k == "where":
            raise Unsupported("where")
        if k == "binary" and e["op"] not in BINARY:
            raise Unsupported(f"binary op {e['op']}")
        if k in ("unary", "clip", "broadcast"):
            if k == "broadcast":
                counts["instructions"] -= 1
            return depth(e["arg"])
        if e["b"]["kind"] == "leaf" and e["b"]["leaf"]["kind"] == "fill":
            return depth(e["a"])
        return max(depth(e["a"]), 1 + depth(e["b"]))

    try:
        d = depth(program["expr"])
    except Unsupported as err:
        # Comparisons and where are not in the native instruction set (native/program-code.ts).
        return str(err)
    except Unencodable:
        return f"more than {LIMITS['dims']} dimensions"
    if d > LIMITS["stack"]:
        return f"expression deeper than {LIMITS['stack']}"
    if counts["instructions"] > LIMITS["instructions"]:
        return f"more than {LIMITS['instructions']} instructions"
    if counts["leaves"] > LIMITS["leaves"]:
        return f"more than {LIMITS['leaves']} leaves"
    return None


def encode(program: Dict[str, Any], input_shapes: Sequence[Optional[Sequence[int]]]) -> np.ndarray:
    """The code of `program`; input_shapes[i] is dependency i's shape (None: not an array)."""
    why = unsupported_reason(program)
    if why:
        raise Unencodable(f"native program: unsupported ({why})")
    pshape = [int(s) for s in program["shape"]]
    shape = [1] if not pshape else pshape
    nd = len(shape)
    out: List[float] = [1, 1 if program["dtype"] == "float32" else 0, nd, *shape]
    red = program.get("reduce")
    icoef = [0] * nd
    ioff = 0
    if red and red["op"] in ("argmin", "argmax"):
        offset = red.get("offset") or [0] * len(pshape)
        if red.get("axis") is not None:
            ioff = offset[red["axis"]] if red["axis"] < len(offset) else 0
            icoef[red["axis"]] = 1
        elif pshape:
            g = red.get("globalShape") or pshape
            if len(g) != nd or len(offset) != nd:
                raise ValueError(f"native program: reduce.offset/globalShape have {len(offset)}/{len(g)} axes, program has {nd}")
            gs = strides(g)
            for d in range(nd):
                ioff += offset[d] * gs[d]
                icoef[d] = gs[d]
    out += [REDUCE.index(red["op"]) if red else 0, red["axis"] if red and red.get("axis") is not None else -1, ioff, *icoef]
    code: List[float] = []
    count = 0

    def leaf_coefs(what: str, leaf_shape: Sequence[int], region: Dict[str, Any], eval_shape: Sequence[int], amap: Sequence[int]) -> List[float]:
        start, step, cnt = region["start"], region["step"], region["count"]
        if len(cnt) != len(eval_shape) or any(c != e for c, e in zip(cnt, eval_shape)):
            raise ValueError(f"native program: {what} region count {cnt} does not match block {list(eval_shape)}")
        if len(start) != len(leaf_shape) or len(step) != len(leaf_shape) or len(leaf_shape) != len(eval_shape):
            raise ValueError(f"native program: {what} region has {len(start)} axes, its array {len(leaf_shape)}")
        st = strides(leaf_shape)
        off = 0
        coef = [0] * nd
        for d in range(len(leaf_shape)):
            last = start[d] + (cnt[d] - 1) * step[d]
            if cnt[d] > 0 and (min(start[d], last) < 0 or max(start[d], last) >= leaf_shape[d]):
                raise ValueError(f"native program: {what} region leaves its array on axis {d}")
            off += start[d] * st[d]
            if amap[d] >= 0:
                coef[amap[d]] += step[d] * st[d]
        return [off, *coef]

    def emit(e: Dict[str, Any], eval_shape: List[int], amap: List[int]) -> None:
        nonlocal count
        k = e["kind"]
        if k == "leaf":
            l = e["leaf"]
            count += 1
            if l["kind"] == "fill":
                code.extend([3, l["value"]])
            elif l["kind"] == "random":
                code.extend([1, 0 if l["dist"] == "normal" else 1, l["seed"], l["a"], l["b"], *leaf_coefs("random leaf", l["shape"], l["region"], eval_shape, amap)])
            elif l["kind"] == "arange":
                code.extend([2, l["start"], l["step"], *leaf_coefs("arange leaf", l["shape"], l["region"], eval_shape, amap)])
            else:
                s = input_shapes[l["dep"]] if l["dep"] < len(input_shapes) else None
                if s is None:
                    raise ValueError(f"native program: input leaf reads dependency {l['dep']}, which is not an array")
                code.extend([4, l["dep"], *leaf_coefs(f"input leaf (dep {l['dep']})", list(s), l["region"], eval_shape, amap)])
            return
        if k == "unary":
            emit(e["arg"], eval_shape, amap)
            count += 1
            code.extend([5, UNARY.index(e["op"])])
            return
        if k == "clip":
            emit(e["arg"], eval_shape, amap)
            count += 1
            code.extend([8, e["lo"], e["hi"]])
            return
        if k == "binary":
            emit(e["a"], eval_shape, amap)
            count += 1
            b = e["b"]
            if b["kind"] == "leaf" and b["leaf"]["kind"] == "fill":
                code.extend([7, BINARY.index(e["op"]), b["leaf"]["value"]])
            else:
                emit(b, eval_shape, amap)
                code.extend([6, BINARY.index(e["op"])])
            return
        if k == "where":
            raise ValueError("native program: where is not in the instruction set")
        frm = list(e["from"])
        # With "axes", axis d of `from` runs along program axis axes[d] (-1: a dropped index axis
        # of length 1); without, NumPy's right alignment (common/arrays.ts broadcastTarget).
        axes = e.get("axes")
        pad = len(eval_shape) - len(frm)
        if axes is not None and len(axes) != len(frm):
            raise ValueError(f"native program: cannot broadcast {frm} (axes {axes}) to {eval_shape}")
        inner = []
        for d, f in enumerate(frm):
            o = axes[d] if axes is not None else d + pad
            if o < -1 or o >= len(eval_shape) or (o == -1 and (axes is None or f != 1)) or (o >= 0 and f != 1 and f != eval_shape[o]):
                raise ValueError(f"native program: cannot broadcast {frm} to {eval_shape}")
            inner.append(-1 if f == 1 or o < 0 else amap[o])
        emit(e["arg"], frm, inner)

    top = pshape
    emit(program["expr"], top, list(range(len(top))))
    out += [count, *code]
    return np.array(out, dtype=np.float64)
