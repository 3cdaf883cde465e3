"""The API of the scripts `gpuflow export-dask` writes: run a compiled graph on a Dask cluster
from a notebook or pipeline, without the bridge process.

`run_graph(graph, address)` takes exactly the `graph` of a `submit` message ({"tasks": [...],
"outputs": [...]}, program specs with their `code`) and a connect target (tcp://..., local:N,
local-cuda), builds the same Dask graph the bridge submits (runs.dask_graph, batched as
batch.plan decides), computes the outputs and returns each output key's value: NumPy arrays,
Partial / Table / Json / Arrays records (values.py), as the executor made them. The package is uploaded to workers that lack it. A cluster it
started (local:N, local-cuda) is closed again; a scheduler it connected to is left as it was.
"""
from __future__ import annotations

import json
from typing import Any, Dict, Optional

from .batch import plan
from .cluster import ConnectError, check_versions, probe_all, ship, start
from .messages import parse
from .runs import dask_graph, key_prefix


def run_graph(graph: Dict[str, Any], address: str, timeout_s: float = 30.0, params: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """Each output key of `graph` -> its value, computed on the cluster at `address`."""
    # The submit parser validates the graph as the bridge would, with the same error messages.
    sub = parse(json.dumps({"type": "submit", "id": "export", "graph": graph}))
    # Keys of their own (graph + params token, fresh token): two scripts on one scheduler at
    # once, or one script run twice, never receive each other's results.
    prefix = key_prefix("export", graph, params)
    dsk = dask_graph(sub, prefix, plan(sub.tasks, sub.outputs))
    client, cluster = start(address, timeout_s)
    try:
        # As the bridge does: the same distributed on both sides, and gpuflow_dask uploaded to
        # workers that cannot import it.
        check_versions(client)
        missing = [a for a, p in ship(client, probe_all(client)).items() if not p.get("gpuflow")]
        if missing:
            raise ConnectError("worker-missing-package", f"gpuflow_dask is not importable on {', '.join(missing)} and could not be uploaded")
        values = client.get(dsk, [prefix + k for k in sub.outputs])
        return dict(zip(sub.outputs, values))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


__all__ = ["run_graph", "ConnectError"]
