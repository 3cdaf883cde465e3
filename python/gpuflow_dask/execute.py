"""Executes one of our task specs (common/tasks.ts TaskSpec) on a Dask worker.

`run_task` is the function every Dask task of ours calls. It takes a `TaskPayload` (an opaque
object, so Dask never looks inside the spec for keys) and the dependency values in order, and
returns the task's value. Any failure becomes a `TaskFailure` naming the task and node, so the
bridge can say which node broke and why.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, Tuple

import numpy as np

from . import device, expr_program, int_program, program, reduce
from .errors import TaskFailure, unsupported
from .execute_threads import threads

Handler = Callable[[Dict[str, Any], Tuple[Any, ...], "TaskPayload"], Any]


@dataclass(frozen=True)
class TaskPayload:
    """What a Dask task of ours carries: the spec and, for messages, its key and node."""

    key: str
    node: str
    spec: Dict[str, Any]

    def __repr__(self) -> str:  # shown in Dask's logs and dashboard
        kind = self.spec.get("kind")
        return f"<gpuflow {kind}{':' + str(self.spec.get('op')) if kind in ('array-op', 'df', 'trial') else ''} {self.key}>"


def _program(spec: Dict[str, Any], inputs: Tuple[Any, ...], t: TaskPayload) -> Any:
    if int_program.is_int_program(spec.get("program") or {}):
        # Only the flat float path reads device chunks in place; these take host values.
        return int_program.run(spec, tuple(device.to_host(v) for v in inputs), threads())[0]
    if not isinstance(spec.get("code"), str) and expr_program.needs_tree(spec.get("program") or {}):
        # Comparisons, where: the js interpreter's port, as the local engine runs these on js.
        return expr_program.run(spec, tuple(device.to_host(v) for v in inputs), threads())[0]
    value, _backend = program.run(spec, inputs, threads())
    prog = spec.get("program") or {}
    if prog.get("dtype") == "bool" and not prog.get("reduce"):
        # A bool block (comparisons, logical ops, astype(bool)): the code computes 1 / 0 in float64,
        # as the local engine's addon does before its host cast (non-zero and NaN are True).
        return device.to_host(value) != 0
    return value


def _combine(spec: Dict[str, Any], inputs: Tuple[Any, ...], t: TaskPayload) -> Any:
    combined = reduce.combine_partials(list(inputs))
    if not spec.get("finalize"):
        return combined
    out = reduce.finalize_partial(combined, spec.get("ddof") or 0)
    # The result's NumPy dtype where it is not float64 (int64 sums, float32, int32 min), as the
    # js finalize casts: an int64 sum or product of integer blocks is their exact int64 result
    # (the partials' isum), other floats convert as js castTo does (truncated; a non-finite
    # value is 0 for int64).
    dtype = spec.get("dtype")
    if not dtype or out.dtype == np.dtype(dtype):
        return out
    if dtype == "int64" and combined.isum is not None:
        return combined.isum.reshape(out.shape).copy()
    if dtype in int_program.INT_DTYPES and out.dtype.kind == "f":
        return int_program.to_int(np.where(np.isfinite(out), out, 0.0), dtype, "finalize")
    return out.astype(dtype)


def _ops(kind: str) -> Dict[str, Handler]:
    """The registry of array-op / df handlers (imported lazily: pandas only where df runs)."""
    if kind == "array-op":
        from .arrays import HANDLERS as A

        return A
    if kind == "df":
        from .df import HANDLERS as D

        return D
    return {}


def run_task(t: TaskPayload, *inputs: Any) -> Any:
    """Runs task `t` on its dependency values; raises TaskFailure on any error."""
    spec = t.spec
    kind = spec.get("kind")
    try:
        if kind == "program":
            return _program(spec, inputs, t)
        # Only programs read device chunks in place; every other handler takes host values.
        inputs = tuple(device.to_host(v) for v in inputs)
        if kind == "combine":
            return _combine(spec, inputs, t)
        if kind in ("array-op", "df"):
            op = str(spec.get("op"))
            handler = _ops(kind).get(op)
            if handler is None:
                raise unsupported(f"{kind} op '{op}'", t.key, t.node)
            return handler(spec.get("params") or {}, inputs, t)
        if kind == "trial":
            raise unsupported(f"tuning trial '{spec.get('op')}' (train the model locally, or run the workflow on this workstation)", t.key, t.node)
        raise unsupported(f"task kind {kind!r}", t.key, t.node)
    except TaskFailure:
        raise
    except Exception as e:  # noqa: BLE001 - every error is reported with its task
        raise TaskFailure("task-error", f"{t.key} (node {t.node}): {type(e).__name__}: {e}", t.key, t.node) from None


def backend_of(spec: Dict[str, Any], capi_ok: bool, cuda_ok: bool = False) -> str:
    """The backend a spec runs on a worker whose C-ABI libraries do (not) load (for `task` events)."""
    kind = spec.get("kind")
    if kind == "program":
        return ("capi-cuda" if cuda_ok else "capi-cpu") if capi_ok else "numpy"
    if kind == "df":
        return "pandas"
    if kind == "array-op" and capi_ok and spec.get("op") in ("matmul", "qr-block", "qr-top", "qr-combine"):
        return "capi-cpu"
    return "numpy"


def probe() -> Dict[str, Any]:
    """What this process can run (client.run on each worker at connect)."""
    from . import capi

    ok = capi.load() is not None
    return {"gpuflow": True, "capi": ok, "why": capi.why()}


