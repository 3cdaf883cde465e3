/**
 * `gpuflow export-dask <workflow.json> > wf.py`: a standalone Python script that runs the
 * workflow's compiled task graph on a Dask cluster with gpuflow_dask, for notebooks and
 * pipelines. The graph is the one `--dask` submits (main/dask/graph.ts), embedded as JSON; the
 * script calls `gpuflow_dask.export.run_graph(graph, address)` (docs/dask.md) and prints each
 * node's output.
 */
import { compileWorkflow } from '../engine/compile/compile';
import { validateWorkflow } from '../engine/validate';
import { wireGraph } from '../dask/graph';
import { firstRefusal } from '../dask/supported';
import { paramOverrides, UsageError, type Parsed } from './args';
import { readWorkflowFile } from './run';

/**
 * The one way a string from outside (workflow name, file path, params, the graph) enters the
 * script: as a JSON string literal, which Python reads as a string literal with the same
 * escapes. No outside text is ever placed inside a docstring or comment, where a quote or a
 * newline could end it.
 */
const pyString = (text: string) => JSON.stringify(text);

export function daskScript(doc: unknown, params: Record<string, number | string | boolean>, source: string): string {
  const wf = validateWorkflow(doc, params);
  const compiled = compileWorkflow(wf);
  const refused = firstRefusal(compiled);
  if (refused) throw new UsageError(`export-dask ${source}: ${refused.message}`);
  const graph = wireGraph(compiled);
  const outputs = Object.fromEntries(Object.entries(compiled.outputs));
  return `#!/usr/bin/env python3
"""A gpuflow workflow exported by \`gpuflow export-dask\` (WORKFLOW and SOURCE below name it).

Runs gpuflow's compiled task graph (${graph.tasks.length} tasks) on a Dask cluster:
    python3 this.py [tcp://scheduler:8786 | local:N | local-cuda]     (default local:2)
Needs dask, distributed, numpy (pandas for dataframes) and gpuflow's python/ folder on
PYTHONPATH, here and on every worker; input files must be readable by the workers.
"""
import json
import sys

from gpuflow_dask.export import run_graph

WORKFLOW = ${pyString(wf.doc.name ?? 'workflow')}
SOURCE = ${pyString(source)}
PARAMS = json.loads(${pyString(JSON.stringify(params))})
GRAPH = json.loads(${pyString(JSON.stringify(graph))})
# Node -> how its result is assembled from task outputs (common/tasks.ts NodeOutput).
OUTPUTS = json.loads(${pyString(JSON.stringify(outputs))})


def shown(v):
    """A small value as JSON numbers; anything else by its repr."""
    try:
        import numpy as np
        a = np.asarray(v)
        if a.dtype.kind in "fiub" and a.size <= 64:
            return a.tolist()
    except Exception:
        pass
    return repr(v)


def main(address: str) -> None:
    # The params go into the Dask keys' token (with a fresh one per run): two scripts of one
    # workflow with other params on one scheduler at once never share results.
    values = run_graph(GRAPH, address, params={"source": SOURCE, "params": PARAMS})
    # One JSON line per output node: {"node", "kind", "value"} (a list of parts for chunked outputs).
    for node, out in OUTPUTS.items():
        keys = out["keys"] if "keys" in out else [out["key"]]
        parts = [shown(values[k]) for k in keys]
        print(json.dumps({"node": node, "kind": out["kind"], "value": parts[0] if len(parts) == 1 else parts}))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "local:2")
`;
}

export async function exportDaskCommand(positionals: string[], opts: Parsed['values']): Promise<number> {
  const doc = await readWorkflowFile(positionals[0]);
  process.stdout.write(daskScript(doc, paramOverrides(opts.param), positionals[0]!));
  return 0;
}
