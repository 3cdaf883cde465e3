"""The bridge's JSON-lines messages (docs/dask.md, "protocol 1"), typed and validated on receipt.

The protocol is defined once, in protocol.json (version, codes, each message type's fields):
this module takes its codes and each inbound type's required fields from there, and
common/dask-messages.ts's zod schemas are tested against it. Inbound lines are checked field by
field with explicit errors (`BadMessage` says what and where), because Debian's Python has no
pydantic. Outbound messages are TypedDicts.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
import pkgutil
from typing import Any, Dict, List, Optional, TypedDict, Union

from .address import parse_target

# pkgutil reads it from a folder or from the zip a worker may import this package from.
SCHEMA: Dict[str, Any] = json.loads((pkgutil.get_data(__package__ or "gpuflow_dask", "protocol.json") or b"").decode("utf-8"))
PROTOCOL: int = SCHEMA["protocol"]
RESOURCES = tuple(SCHEMA["enums"]["resource"])
SPEC_KINDS = tuple(SCHEMA["enums"]["specKind"])
INBOUND = SCHEMA["toBridge"]


class BadMessage(ValueError):
    """An inbound line that is not a valid message; `id` is its id when it had a readable one."""

    def __init__(self, message: str, id: Optional[str] = None) -> None:
        super().__init__(message)
        self.id = id


@dataclass
class Connect:
    id: str
    target: str
    timeout_s: float
    # How long a run waits while the cluster has no worker before it fails (--dask-wait).
    wait_s: float = 60.0
    # tls:// only: {"ca", "cert", "key"} file paths (distributed.security.Security).
    tls: Optional[Dict[str, str]] = None


@dataclass
class WorkersQuery:
    id: str


@dataclass
class TaskDef:
    key: str
    deps: List[str]
    spec: Dict[str, Any]
    resource: str
    node: str
    op: str


@dataclass
class Submit:
    id: str
    tasks: List[TaskDef]
    outputs: List[str]


@dataclass
class Cancel:
    id: str


@dataclass
class Shutdown:
    # True: end the cluster the bridge started at once (its processes killed), for a gpuflow
    # process that exits next (`gpuflow run`); False: close it gracefully (serve, a cluster switch).
    fast: bool = False


Inbound = Union[Connect, WorkersQuery, Submit, Cancel, Shutdown]


def _str(obj: Dict[str, Any], name: str, where: str) -> str:
    v = obj.get(name)
    if not isinstance(v, str) or not v:
        raise BadMessage(f"{where}: '{name}' must be a non-empty string, got {json.dumps(v)[:80]}", obj.get("id") if isinstance(obj.get("id"), str) else None)
    return v


def _task(t: Any, i: int, mid: str) -> TaskDef:
    where = f"submit {mid}: tasks[{i}]"
    if not isinstance(t, dict):
        raise BadMessage(f"{where} must be an object", mid)
    key = _str(t, "key", where)
    where = f"submit {mid}: task {key!r}"
    deps = t.get("deps")
    if not isinstance(deps, list) or not all(isinstance(d, str) for d in deps):
        raise BadMessage(f"{where}: 'deps' must be a list of task keys", mid)
    spec = t.get("spec")
    if not isinstance(spec, dict) or spec.get("kind") not in SPEC_KINDS:
        raise BadMessage(f"{where}: 'spec.kind' must be one of {', '.join(SPEC_KINDS)}", mid)
    kind = spec["kind"]
    if kind == "program":
        if not isinstance(spec.get("program"), dict):
            raise BadMessage(f"{where}: a program spec needs 'program'", mid)
        if "code" in spec and not isinstance(spec["code"], str):
            raise BadMessage(f"{where}: 'spec.code' must be base64 text", mid)
    elif kind == "combine":
        if not isinstance(spec.get("finalize"), bool):
            raise BadMessage(f"{where}: a combine spec needs a boolean 'finalize'", mid)
    elif not isinstance(spec.get("op"), str) or not isinstance(spec.get("params", {}), dict):
        raise BadMessage(f"{where}: a {kind} spec needs a string 'op' and an object 'params'", mid)
    resource = t.get("resource", "any")
    if resource not in RESOURCES:
        raise BadMessage(f"{where}: 'resource' must be gpu, cpu or any", mid)
    node = t.get("node")
    op = t.get("op", "")
    if not isinstance(node, str) or not isinstance(op, str):
        raise BadMessage(f"{where}: 'node' and 'op' must be strings", mid)
    return TaskDef(key, list(deps), spec, resource, node, op)


def parse(line: str) -> Inbound:
    """Parses and validates one inbound line."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as e:
        raise BadMessage(f"not JSON: {e.msg} at column {e.colno}") from None
    if not isinstance(obj, dict):
        raise BadMessage("a message must be a JSON object")
    t = obj.get("type")
    if not isinstance(t, str) or t not in INBOUND:
        raise BadMessage(f"unknown message type {json.dumps(t)[:60]} ({', '.join(INBOUND)})", obj.get("id") if isinstance(obj.get("id"), str) else None)
    fields = INBOUND[t]
    missing = [f for f in fields["required"] if f not in obj]
    unknown = [f for f in obj if f not in fields["required"] and f not in fields["optional"]]
    if missing or unknown:
        quoted = lambda names: ", ".join(f"'{n}'" for n in names)  # noqa: E731
        what = "; ".join(x for x in (f"missing {quoted(missing)}" if missing else "", f"unknown field {quoted(unknown)}" if unknown else "") if x)
        raise BadMessage(f"{t} message: {what} (protocol.json)", obj.get("id") if isinstance(obj.get("id"), str) else None)
    if t == "shutdown":
        fast = obj.get("fast", False)
        if not isinstance(fast, bool):
            raise BadMessage(f"shutdown message: 'fast' must be true or false, got {json.dumps(fast)[:40]}")
        return Shutdown(fast)
    mid = _str(obj, "id", t)
    if t == "connect":
        target = _str(obj, "target", f"connect {mid}")
        try:
            target = parse_target(target)
        except ValueError as e:
            raise BadMessage(f"connect {mid}: {e}", mid) from None
        timeout = obj.get("timeout_s", 10)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= 3600:
            raise BadMessage(f"connect {mid}: timeout_s must be a number of seconds in (0, 3600]", mid)
        wait = obj.get("wait_s", 60)
        if isinstance(wait, bool) or not isinstance(wait, (int, float)) or not 0 < wait <= 86400:
            raise BadMessage(f"connect {mid}: wait_s must be a number of seconds in (0, 86400]", mid)
        tls = obj.get("tls")
        if tls is not None and (not isinstance(tls, dict) or set(tls) != {"ca", "cert", "key"} or not all(isinstance(v, str) and v for v in tls.values())):
            raise BadMessage(f"connect {mid}: tls must be an object of file paths 'ca', 'cert' and 'key'", mid)
        return Connect(mid, target, float(timeout), float(wait), tls)
    if t == "workers":
        return WorkersQuery(mid)
    if t == "cancel":
        return Cancel(mid)
    graph = obj.get("graph")
    if not isinstance(graph, dict) or not isinstance(graph.get("tasks"), list):
        raise BadMessage(f"submit {mid}: 'graph.tasks' must be a list", mid)
    tasks = [_task(x, i, mid) for i, x in enumerate(graph["tasks"])]
    keys = {x.key for x in tasks}
    if len(keys) != len(tasks):
        raise BadMessage(f"submit {mid}: duplicate task keys", mid)
    for x in tasks:
        for d in x.deps:
            if d not in keys:
                raise BadMessage(f"submit {mid}: task {x.key!r} depends on {d!r}, which is not in the graph", mid)
    outputs = graph.get("outputs")
    if not isinstance(outputs, list) or not all(isinstance(k, str) and k in keys for k in outputs):
        raise BadMessage(f"submit {mid}: 'graph.outputs' must list keys of the graph's tasks", mid)
    return Submit(mid, tasks, list(dict.fromkeys(outputs)))


# ---- bridge -> main (shapes only; the bridge builds them as dicts) ----


class GpuInfo(TypedDict):
    name: str
    memory: int


class WorkerInfo(TypedDict):
    name: str
    address: str
    host: str
    pid: Optional[int]
    nthreads: int
    memory_limit: int
    gpus: List[GpuInfo]
    gpuflow: bool


class TaskEvent(TypedDict, total=False):
    type: str  # "task"
    run: str
    key: str
    worker: str
    thread: Optional[int]
    start: float
    stop: float
    status: str  # "done" | "erred"
    nbytes: Optional[int]
    backend: str
    error: str


class TransferEvent(TypedDict):
    type: str  # "transfer"
    run: str
    key: str
    from_: str  # written as "from"
    to: str
    start: float
    stop: float
    bytes: int


FAILURE_CODES = tuple(SCHEMA["enums"]["failureCode"])
# A failure's message is stored with the run: bounded, so no pickled graph or repr of a huge
# value ever lands in history (a CancelledError or a task's exception may carry one).
MESSAGE_LIMIT = 1000
ERROR_CODES = tuple(SCHEMA["enums"]["errorCode"])


def error(id: Optional[str], code: str, message: str) -> Dict[str, Any]:
    assert code in ERROR_CODES, code
    return {"type": "error", "id": id, "code": code, "message": bounded(message)}


def failed(id: str, code: str, message: str, key: Optional[str] = None, node: Optional[str] = None) -> Dict[str, Any]:
    assert code in FAILURE_CODES, code
    return {"type": "failed", "id": id, "code": code, "message": bounded(message), "key": key, "node": node}


def bounded(message: str) -> str:
    """`message` cut to MESSAGE_LIMIT characters, saying how much was left out."""
    if len(message) <= MESSAGE_LIMIT:
        return message
    return f"{message[:MESSAGE_LIMIT]}... ({len(message) - MESSAGE_LIMIT} more characters)"


def notice(id: Optional[str], message: str) -> Dict[str, Any]:
    """Something the user should see now (a run waiting for workers); not an error."""
    return {"type": "notice", "id": id, "message": message}


def lost(scheduler: str, message: str) -> Dict[str, Any]:
    """The scheduler is gone: main marks the target disconnected and reconnects for the next run."""
    return {"type": "lost", "scheduler": scheduler, "message": message}
