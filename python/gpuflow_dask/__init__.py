"""gpuflow's Python side for Dask clusters (issue 15, docs/dask.md).

The TypeScript app compiles a workflow to its task graph and hands it to the bridge
(``python -m gpuflow_dask.bridge``), which submits it to Dask; the Dask workers import this
package to execute our task specs (``execute.run_task``). Nothing here imports distributed at
module level except the bridge modules, so a worker only needs NumPy (and pandas for tables).
The protocol between main and the bridge, its version included, is protocol.json (messages.py).
"""

