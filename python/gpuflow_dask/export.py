"""The API of the scripts `gpuflow export-dask` writes: run a compiled graph on a Dask cluster
from a notebook or pipeline, without the bridge process.

`run_graph(graph, address)` takes exactly the `graph` of a `submit` message ({"tasks": [...],
"outputs": [...]}, program specs with their `code`) and a connect target (tcp://..., local:N,
local-cuda), builds the same Dask graph the bridge submits (runs.dask_graph, batched as
batch.plan decides), computes the outputs and returns each output key's value: NumPy arrays,
Partial / Table / Json / Arrays records (values.py), as the executor made them. A cluster it
started (local:N, local-cuda) is closed again; a scheduler it connected to is left as it was.
"""
from __future__ import annotations

import json
from typing import Any, Dict

from .batch import plan
from .cluster import ConnectError, start
from .messages import parse
from .runs import dask_graph


def run_graph(graph: Dict[str, Any], address: str, timeout_s: float = 30.0) -> Dict[str, Any]:
    """Each output key of `graph` -> its value, computed on the cluster at `address`."""
    # The submit parser validates the graph as the bridge would, with the same error messages.
    sub = parse(json.dumps({"type": "submit", "id": "export", "graph": graph}))
    dsk = dask_graph(sub, "", plan(sub.tasks, sub.outputs))
    client, cluster = start(address, timeout_s)
    try:
        values = client.get(dsk, list(sub.outputs))
        return dict(zip(sub.outputs, values))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


__all__ = ["run_graph", "ConnectError"]
