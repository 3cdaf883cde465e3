"""The seed workload's task graph as gpuflow compiles it (x = normal(10, 1, (N, N)) in square
chunks, (x + 1)[::2, ::2].sum()): one fused program per chunk (random leaf over the kept
elements, + 1, sum) and a tree of combines, in the bridge protocol's task form (with `code`).
Used by seed_dask.py; `python3 seed_graph.py N CHUNK > graph.json` writes it for other tools."""
from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any, Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from gpuflow_dask.encode import encode  # noqa: E402

FAN_IN = 8


def chunk_program(n: int, chunk: int, i: int, j: int, seed: int = 0) -> Dict[str, Any]:
    """The fused chunk program of block (i, j) of the sliced array (every other row and column)."""
    r0, c0 = i * chunk, j * chunk
    rows = len(range(r0 + (r0 % 2), min(r0 + chunk, n), 2))
    cols = len(range(c0 + (c0 % 2), min(c0 + chunk, n), 2))
    leaf = {"kind": "random", "dist": "normal", "seed": seed, "a": 10, "b": 1, "shape": [n, n],
            "region": {"start": [r0 + (r0 % 2), c0 + (c0 % 2)], "step": [2, 2], "count": [rows, cols]}}
    expr = {"kind": "binary", "op": "add", "a": {"kind": "leaf", "leaf": leaf}, "b": {"kind": "leaf", "leaf": {"kind": "fill", "value": 1}}}
    return {"dtype": "float64", "shape": [rows, cols], "expr": expr, "reduce": {"op": "sum", "axis": None}}


def graph(n: int, chunk: int) -> Dict[str, Any]:
    tasks: List[Dict[str, Any]] = []
    blocks = (n + chunk - 1) // chunk
    level = []
    for i in range(blocks):
        for j in range(blocks):
            prog = chunk_program(n, chunk, i, j)
            code = base64.b64encode(encode(prog, []).astype("<f8").tobytes()).decode()
            key = f"total/sum({i},{j})"
            tasks.append({"key": key, "deps": [], "spec": {"kind": "program", "program": prog, "code": code}, "resource": "gpu", "node": "total", "op": "normal+add+slice+sum", "outBytes": 8, "workBytes": 8})
            level.append(key)
    depth = 0
    while len(level) > 1 or depth == 0:
        nxt = []
        for g in range(0, len(level), FAN_IN):
            key = f"total/sum-combine{depth}({g // FAN_IN})"
            deps = level[g:g + FAN_IN]
            final = len(level) <= FAN_IN
            tasks.append({"key": key, "deps": deps, "spec": {"kind": "combine", "finalize": final}, "resource": "any", "node": "total", "op": "sum-combine", "outBytes": 8, "workBytes": 8})
            nxt.append(key)
        level = nxt
        depth += 1
    return {"tasks": tasks, "outputs": level}


if __name__ == "__main__":
    print(json.dumps(graph(int(sys.argv[1]), int(sys.argv[2]))))
