"""Source files checked before a run is submitted: one worker is asked whether each path a
read task names exists there and is a regular file, so a path the workers cannot see fails at
once naming the node, its param and the worker, not mid-run from inside a task."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from .csv_read import regular_file_problem
from .errors import TaskFailure

# The (kind, op) of tasks that read a file, and the param (in the node's terms) that names it.
FILE_OPS = {("df", "read-csv"): "params.path", ("array-op", "npy-read"): "params.path"}


def _problems(paths: List[str]) -> Dict[str, Optional[str]]:
    """Runs on the worker: each path's problem there, or None."""
    return {p: regular_file_problem(p) for p in paths}


def check_sources(client: Any, tasks: List[Any]) -> None:
    """Raises a TaskFailure for the first source path one worker cannot read; nothing when the
    graph reads no file or the cluster has no worker yet (the run then waits for workers)."""
    first: Dict[str, Tuple[Any, str]] = {}
    for t in tasks:
        param = FILE_OPS.get((t.spec.get("kind"), t.spec.get("op")))
        if param is not None:
            first.setdefault(str(t.spec["params"]["path"]), (t, param))
    if not first:
        return
    workers = sorted(client.scheduler_info().get("workers", {}))
    if not workers:
        return
    worker = workers[0]
    answer = client.run(_problems, list(first), workers=[worker]).get(worker, {})
    for path, (t, param) in first.items():
        why = answer.get(path)
        if why:
            raise TaskFailure("task-error", f"{param}: the Dask worker {worker} {why}; put the file where every worker sees it at that path", t.key, t.node)
