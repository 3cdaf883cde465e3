/** `gpuflow explain <workflow.json>`: the task graph before and after optimisation, without running. */
import { compileWorkflow } from '../engine/compile/compile';
import { explain } from '../engine/compile/explain';
import { validateWorkflow } from '../engine/validate';
import { paramOverrides, type Parsed } from './args';
import { readWorkflowFile } from './run';

export async function explainCommand(positionals: string[], opts: Parsed['values']): Promise<number> {
  const doc = await readWorkflowFile(positionals[0]);
  const wf = validateWorkflow(doc, paramOverrides(opts.param));
  const ex = explain(compileWorkflow(wf));
  if (opts.json) {
    process.stdout.write(JSON.stringify(ex, null, 2) + '\n');
    return 0;
  }
  const out = [
    `tasks without fusion: ${ex.unfusedTasks}`,
    `tasks after fusion:   ${ex.emittedTasks}`,
    `tasks after culling:  ${ex.tasks}`,
    'by node:',
    ...Object.entries(ex.byNode).map(([n, c]) => `  ${n.padEnd(20)} ${c}`),
    'by op:',
    ...Object.entries(ex.byOp).map(([n, c]) => `  ${n.padEnd(36)} ${c}`),
    'output types:',
    ...Object.entries(ex.portTypes).map(([n, t]) => `  ${n.padEnd(20)} ${t}`),
    `critical path: ${ex.criticalPath.length} tasks`,
    ...ex.criticalPath.map((k) => `  ${k}`),
  ];
  process.stdout.write(out.join('\n') + '\n');
  return 0;
}
