"""The `program` task: a fused chunk program (common/arrays.ts ChunkProgram).

Main sends the program twice: as JSON (shape, dtype, reduce) and as the flat float64 `code`
that native/program-code.ts encodes for the addon, so the encoder exists once. The C-ABI
library runs the code when it loads (same bits as the addon's native-cpu backend); otherwise
this module decodes the code and evaluates it with NumPy: leaves are affine index maps of the
output coordinates, so each leaf is one vectorised gather / generator call.
"""
from __future__ import annotations

import base64
import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import capi, device
from .encode import encode
from .philox import random32, random64, seed_key
from .values import PARTIAL_FIELDS, Partial

REDUCE = ["none", "sum", "mean", "var", "std", "min", "max", "argmin", "argmax", "prod", "nanprod", "nanmin", "nanmax", "nanmean"]
UNARY = ["neg", "abs", "exp", "log", "sqrt", "sin", "cos", "tanh", "square", "round", "isnan", "isfinite", "floor", "ceil"]
BINARY = ["add", "sub", "mul", "div", "pow", "min", "max", "eq", "ne", "lt", "le", "gt", "ge"]
MAX_SAFE = 2.0**53


@dataclass
class Leaf:
    kind: int  # 1 random, 2 arange, 4 input
    off: int
    coef: List[int]
    normal: bool = False
    seed: int = 0
    a: float = 0.0
    b: float = 0.0
    dep: int = 0


@dataclass
class Instr:
    op: int
    sub: int = 0
    p0: float = 0.0
    p1: float = 0.0
    leaf: Optional[Leaf] = None


@dataclass
class Code:
    f32: bool
    shape: List[int]
    reduce: str
    axis: int  # -1: all axes
    ioff: int
    icoef: List[int]
    instrs: List[Instr] = field(default_factory=list)


class _Reader:
    def __init__(self, code: np.ndarray) -> None:
        self.code = code
        self.pos = 0

    def next(self, what: str) -> float:
        if self.pos >= self.code.size:
            raise ValueError(f"program code ends early, reading {what}")
        v = float(self.code[self.pos])
        self.pos += 1
        return v

    def integer(self, what: str, lo: float, hi: float) -> int:
        v = self.next(what)
        if not (lo <= v <= hi) or math.floor(v) != v:
            raise ValueError(f"program code: {what} must be an integer in [{lo:g}, {hi:g}], got {v}")
        return int(v)


def decode_b64(code_b64: str) -> np.ndarray:
    """The float64 code of the protocol's base64 `code` field."""
    raw = base64.b64decode(code_b64, validate=True)
    if len(raw) % 8:
        raise ValueError(f"program code: {len(raw)} bytes is not a whole number of float64 values")
    return np.frombuffer(raw, dtype="<f8").astype(np.float64)


def decode(code: np.ndarray) -> Code:
    """Decodes and checks the code as native/src/program.cc does (bounds against inputs come later)."""
    r = _Reader(code)
    r.integer("version", 1, 1)
    f32 = r.integer("dtype", 0, 1) == 1
    nd = r.integer("ndim", 1, 8)
    shape = [r.integer("shape", 0, MAX_SAFE) for _ in range(nd)]
    reduce = REDUCE[r.integer("reduce op", 0, len(REDUCE) - 1)]
    axis = r.integer("reduce axis", -1, nd - 1)
    ioff = r.integer("index offset", -1, MAX_SAFE)
    icoef = [r.integer("index coefficient", 0, MAX_SAFE) for _ in range(nd)]
    p = Code(f32, shape, reduce, axis, ioff, icoef)
    depth = 0
    for _ in range(r.integer("instruction count", 1, 48)):
        op = r.integer("opcode", 1, 8)
        if op <= 4:
            depth += 1
            if op == 3:
                p.instrs.append(Instr(3, p0=r.next("fill value")))
                continue
            leaf = Leaf(op, 0, [])
            if op == 1:
                leaf.normal = r.integer("random dist", 0, 1) == 0
                leaf.seed = r.integer("random seed", 0, MAX_SAFE - 1)
                leaf.a, leaf.b = r.next("random a"), r.next("random b")
            elif op == 2:
                leaf.a, leaf.b = r.next("arange start"), r.next("arange step")
            else:
                leaf.dep = r.integer("input dep", 0, 1e9)
            leaf.off = r.integer("leaf offset", 0, MAX_SAFE)
            # Negative when a slice with a negative step walks the leaf backwards (x[::-1]).
            leaf.coef = [r.integer("leaf coefficient", -MAX_SAFE, MAX_SAFE) for _ in range(nd)]
            p.instrs.append(Instr(op, leaf=leaf))
        elif op == 5:
            if depth < 1:
                raise ValueError("program code: unary op on an empty stack")
            p.instrs.append(Instr(5, sub=r.integer("unary op", 0, len(UNARY) - 1)))
        elif op == 6:
            if depth < 2:
                raise ValueError("program code: binary op needs two operands")
            depth -= 1
            p.instrs.append(Instr(6, sub=r.integer("binary op", 0, len(BINARY) - 1)))
        elif op == 7:
            if depth < 1:
                raise ValueError("program code: binary op on an empty stack")
            sub = r.integer("binary op", 0, len(BINARY) - 1)
            p.instrs.append(Instr(7, sub=sub, p0=r.next("binary constant")))
        else:
            if depth < 1:
                raise ValueError("program code: clip on an empty stack")
            p.instrs.append(Instr(8, p0=r.next("clip low"), p1=r.next("clip high")))
        if depth > 16:
            raise ValueError("program code: expression deeper than 16")
    if depth != 1:
        raise ValueError(f"program code: expression leaves {depth} values, not 1")
    if r.pos != code.size:
        raise ValueError(f"program code: {code.size - r.pos} trailing values")
    return p


def _flat_index(off: int, coef: Sequence[int], shape: Sequence[int]) -> np.ndarray:
    """off + sum_a c[a] * coef[a] over the output grid (int64, the output's shape)."""
    idx = np.full(tuple(shape), off, dtype=np.int64)
    for a, (n, c) in enumerate(zip(shape, coef)):
        if c:
            view = [1] * len(shape)
            view[a] = n
            idx = idx + (np.arange(n, dtype=np.int64) * c).reshape(view)
    return idx


def _unary(op: str, x: np.ndarray) -> np.ndarray:
    if op == "neg":
        return -x
    if op == "square":
        return x * x
    with np.errstate(all="ignore"):
        return getattr(np, op)(x)


_COMPARE = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal}


def _binary(op: str, a: Any, b: Any) -> np.ndarray:
    with np.errstate(all="ignore"):
        if op == "add":
            return a + b
        if op == "sub":
            return a - b
        if op == "mul":
            return a * b
        if op == "div":
            return a / b
        if op == "pow":
            return np.power(a, b)
        if op in _COMPARE:
            # 1 / 0 in the operands' float type, as native/src/ops.h's binaryOp gives (NaN != x).
            return _COMPARE[op](a, b).astype(np.result_type(a, b))
        return np.minimum(a, b) if op == "min" else np.maximum(a, b)


def evaluate(p: Code, inputs: Sequence[np.ndarray]) -> np.ndarray:
    """The elementwise result (before any reduction), float64 or float32, of the output's shape."""
    ft = np.float32 if p.f32 else np.float64
    stack: List[np.ndarray] = []
    shape = tuple(p.shape)
    for ins in p.instrs:
        if ins.op == 3:
            stack.append(np.full(shape, ins.p0, dtype=ft))
            continue
        if ins.leaf is not None:
            l = ins.leaf
            idx = _flat_index(l.off, l.coef, shape)
            if idx.size and int(idx.min()) < 0:  # a backward leaf must not run off the front
                raise ValueError(f"program code: leaf reads index {int(idx.min())}, below 0")
            if l.kind == 1:
                k0, k1 = seed_key(l.seed)
                v = (random32 if p.f32 else random64)(idx, l.normal, k0, k1, l.a, l.b)
            elif l.kind == 2:
                v = l.a + l.b * idx.astype(np.float64)
            else:
                if l.dep >= len(inputs):
                    raise ValueError(f"program code: input leaf reads dependency {l.dep} but only {len(inputs)} inputs were given")
                src = inputs[l.dep]
                if idx.size and int(idx.max()) >= src.size:
                    raise ValueError(f"program code: input leaf reads index {int(idx.max())} of dependency {l.dep}, which has {src.size} elements")
                v = src.astype(np.float64, copy=False)[idx]
            stack.append(np.asarray(v, dtype=ft))
            continue
        if ins.op == 5:
            stack[-1] = _unary(UNARY[ins.sub], stack[-1])
        elif ins.op == 6:
            b = stack.pop()
            stack[-1] = _binary(BINARY[ins.sub], stack[-1], b)
        elif ins.op == 7:
            # The constant stays unrounded, as the js reference applies it to float32 buffers.
            c = ins.p0
            x = stack[-1]
            stack[-1] = _binary(BINARY[ins.sub], x.astype(np.float64), c) if p.f32 else _binary(BINARY[ins.sub], x, c)
        else:
            x = stack[-1]
            stack[-1] = np.where(np.isnan(x), x, np.minimum(np.maximum(x, ins.p0), ins.p1))
        stack[-1] = stack[-1].astype(ft, copy=False)
    return stack[0]


def _neumaier(x: np.ndarray) -> float:
    """An exactly rounded sum (Neumaier's compensated sum agrees with it to the last bit or so)."""
    if not x.size:
        return 0.0
    if not np.isfinite(x).all():
        # fsum raises on inf + -inf; NumPy's sum of non-finite values is inf, -inf or NaN.
        with np.errstate(invalid="ignore"):
            return float(np.sum(x))
    return math.fsum(x.ravel().tolist())


def reduce_numpy(p: Code, v: np.ndarray) -> Dict[str, np.ndarray]:
    """The partial's fields of elementwise result `v` (common/arrays.ts PARTIAL_FIELDS)."""
    x = v.astype(np.float64)
    op = p.reduce
    if p.axis < 0:
        lanes = x.reshape(1, -1)
        gidx = _flat_index(p.ioff, p.icoef, p.shape).reshape(1, -1)
    else:
        lanes = np.moveaxis(x, p.axis, -1).reshape(-1, p.shape[p.axis])
        gidx = np.moveaxis(_flat_index(p.ioff, p.icoef, p.shape), p.axis, -1).reshape(-1, p.shape[p.axis])
    n = lanes.shape[1]
    if op in ("sum", "mean"):
        s = np.array([_neumaier(row) for row in lanes]) if lanes.shape[0] <= 4096 else lanes.sum(axis=1)
        return {"sum": s, "count": np.full(lanes.shape[0], float(n))} if op == "mean" else {"sum": s}
    if op in ("prod", "nanprod"):
        # In flat order, as the js chunk step (NumPy's multiply.reduce has no pairwise form).
        v = np.ones(lanes.shape[0])
        for k in range(n):
            col = lanes[:, k]
            v = v * (np.where(np.isnan(col), 1.0, col) if op == "nanprod" else col)
        return {"value": v}
    if op in ("nanmin", "nanmax", "nanmean"):
        live = ~np.isnan(lanes)
        count = live.sum(axis=1).astype(np.float64)
        if op == "nanmean":
            return {"sum": np.array([_neumaier(row[ok]) for row, ok in zip(lanes, live)]), "count": count}
        fill = np.inf if op == "nanmin" else -np.inf
        kept = np.where(live, lanes, fill)
        val = (kept.min(axis=1) if op == "nanmin" else kept.max(axis=1)) if n else np.full(lanes.shape[0], fill)
        return {"value": val, "count": count}
    if op in ("var", "std"):
        mean = lanes.sum(axis=1) / n if n else np.zeros(lanes.shape[0])
        m2 = ((lanes - mean[:, None]) ** 2).sum(axis=1)
        return {"count": np.full(lanes.shape[0], float(n)), "mean": mean, "m2": m2}
    nan = np.isnan(lanes).any(axis=1)
    if op in ("min", "max"):
        if n == 0:
            return {"value": np.full(lanes.shape[0], np.inf if op == "min" else -np.inf)}
        val = lanes.min(axis=1) if op == "min" else lanes.max(axis=1)
        return {"value": np.where(nan, np.nan, val)}
    if n == 0:
        return {"value": np.full(lanes.shape[0], np.inf if op == "argmin" else -np.inf), "index": np.full(lanes.shape[0], -1.0)}
    at = np.argmin(lanes, axis=1) if op == "argmin" else np.argmax(lanes, axis=1)  # first NaN, else first extreme
    rows = np.arange(lanes.shape[0])
    return {"value": lanes[rows, at], "index": gidx[rows, at].astype(np.float64)}


def _device_inputs(cp: Any, inputs: Sequence[Any]) -> Tuple[List[Any], List[bool]]:
    """The program's inputs as the device entry takes them: a device chunk as a flat contiguous
    device array of an input type (int64 as float64, as capi.as_input does on the host), read in
    place; anything else as capi.as_input makes it (uploaded by the kernel)."""
    arrays: List[Any] = []
    on: List[bool] = []
    for v in inputs:
        if isinstance(v, device.DeviceChunk):
            a = v.array.ravel()
            if np.dtype(a.dtype) not in capi.INPUT_TYPES:
                a = a.astype(cp.float64)
            arrays.append(cp.ascontiguousarray(a))
            on.append(True)
        else:
            arrays.append(capi.as_input(v))
            on.append(False)
    if any(on):
        # CuPy's copies run on its stream; the kernels on the addon's: finish the copies first.
        cp.cuda.get_current_stream().synchronize()
    return arrays, on


def _partial(out: np.ndarray, shape: List[int], red: Dict[str, Any]) -> Partial:
    """The Partial of a reduction's flat output (its fields one after another)."""
    pshape = partial_shape(shape, red)
    size = int(np.prod(pshape, dtype=np.int64))
    return Partial(red["op"], pshape, {f: out[i * size:(i + 1) * size].reshape(pshape).copy() for i, f in enumerate(PARTIAL_FIELDS[red["op"]])})


def partial_shape(shape: List[int], reduce: Dict[str, Any]) -> List[int]:
    axis = reduce.get("axis")
    return [] if axis is None else [s for d, s in enumerate(shape) if d != axis]


def run(spec: Dict[str, Any], inputs: Sequence[Any], threads: int = 1, use_capi: bool = True) -> Tuple[Any, str]:
    """Runs a `program` spec; returns (value, backend: 'capi-cuda' | 'capi-cpu' | 'numpy').
    The device runs it where the CUDA library loads and sees a GPU (a GPU worker); there, with
    CuPy, a program without a reduction leaves its chunk on the device (device.DeviceChunk) and
    device chunks among the inputs are read in place."""
    prog = spec["program"]
    if isinstance(spec.get("code"), str):
        code = decode_b64(spec["code"])
    else:
        # main could not encode it (an input's shape was unknown there): encode it here.
        code = encode(prog, [list(v.shape) if isinstance(v, (np.ndarray, device.DeviceChunk)) else None for v in inputs])
    shape = [int(s) for s in prog["shape"]]
    dtype = prog["dtype"]
    red = prog.get("reduce")
    lib = capi.load() if use_capi else None
    gpu = capi.load_cuda() if lib is not None else None
    # CuPy only where a chunk is to stay on the device or already is: a reduction over host
    # inputs (the seed's chunks) needs none, and importing it costs each worker ~1 s.
    resident = red is None or any(isinstance(v, device.DeviceChunk) for v in inputs)
    cp = device.cupy() if gpu is not None and resident and capi.takes_device_inputs(gpu) else None
    if lib is not None and gpu is not None and cp is not None:
        arrays, on = _device_inputs(cp, inputs)
        made = (lambda n, dt: cp.empty(n, dtype=dt)) if red is None else None
        out = capi.run_program_cuda_on(gpu, lib, code, arrays, on, made)
        if red is None:
            return device.DeviceChunk(out.reshape(shape)), "capi-cuda"
        return _partial(out, shape, red), "capi-cuda"
    flat = [capi.as_input(device.to_host(v)) for v in inputs]
    if lib is not None:
        if gpu is not None:
            out, backend = capi.run_program_cuda(gpu, lib, code, flat), "capi-cuda"
        else:
            out, backend = capi.run_program(lib, code, flat, threads), "capi-cpu"
        if red is None:
            return out.reshape(shape), backend
        return _partial(out, shape, red), backend
    p = decode(code)
    v = evaluate(p, flat)
    if red is None:
        return v.reshape(shape).astype(np.float32 if dtype == "float32" else np.float64, copy=False), "numpy"
    pshape = partial_shape(shape, red)
    fields = {k: np.asarray(a, np.float64).reshape(pshape) for k, a in reduce_numpy(p, v).items()}
    return Partial(red["op"], pshape, {f: fields[f] for f in PARTIAL_FIELDS[red["op"]]}), "numpy"
