import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WorkflowErrors } from '../../../main/engine/errors';
import { loadWorkflowText, validateWorkflow } from '../../../main/engine/validate';

const seed = JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8'));
const clone = () => JSON.parse(JSON.stringify(seed));

function errorsOf(doc: unknown): string[] {
  try {
    validateWorkflow(doc);
  } catch (e) {
    if (e instanceof WorkflowErrors) return e.errors.map((x) => x.message);
    throw e;
  }
  return [];
}

describe('workflow validation', () => {
  it('accepts the seed benchmark and resolves $params', () => {
    const wf = validateWorkflow(seed, { N: 300 });
    expect(wf.params.get('x')?.shape).toEqual([300, 300]);
    expect(wf.order).toEqual(['x', 'plus1', 'every_other', 'total']);
  });

  it('names an unknown op with the node and field', () => {
    const d = clone();
    d.nodes[1].op = 'frobnicate';
    expect(errorsOf(d)).toContainEqual(expect.stringMatching(/^nodes\[1\]\.op \(node 'plus1'\): unknown op 'frobnicate'/));
  });

  it('reports a cycle with the nodes on it', () => {
    const d = clone();
    d.nodes[0] = { id: 'x', op: 'scalar_op', params: { value: 1 } };
    d.edges.push({ source: 'total', sourcePort: 'out', target: 'x', targetPort: 'x' });
    expect(errorsOf(d).join('\n')).toMatch(/edges \(node '.+'\): cycle through nodes 'x', 'plus1', 'every_other', 'total'/);
  });

  it('refuses a connection between ports of different types', () => {
    const d = clone();
    // A random array has no input at all: connecting into it names the missing port.
    d.edges.push({ source: 'total', sourcePort: 'out', target: 'x', targetPort: 'x' });
    expect(errorsOf(d).join('\n')).toMatch(/edges\[3\]\.targetPort \(node 'x'\): 'random_normal' has no input 'x'/);
  });

  it('names a missing required param', () => {
    const d = clone();
    delete d.nodes[1].params.value;
    expect(errorsOf(d)).toContain("nodes[1].params.value (node 'plus1'): is required");
  });

  it('says a negative chunk size must be positive', () => {
    const d = clone();
    d.nodes[0].params.chunks = [-5, 100];
    expect(errorsOf(d)).toContain("nodes[0].params.chunks (node 'x'): [0] must be positive, got -5");
  });

  it('reports text that is not JSON with its line and column', () => {
    expect(() => loadWorkflowText('{\n  "format": oops\n}')).toThrow(/workflow: not valid JSON \(line 2, column \d+\)/);
  });

  it('names an unconnected required input and an unknown workflow param', () => {
    const d = clone();
    d.edges = d.edges.filter((e: { target: string }) => e.target !== 'total');
    d.nodes[0].params.seed = '$nope';
    const errs = errorsOf(d).join('\n');
    expect(errs).toMatch(/nodes\[3\]\.inputs\.x \(node 'total'\): required array input is not connected/);
    expect(errs).toMatch(/nodes\[0\]\.params\.seed \(node 'x'\): refers to workflow param 'nope'/);
  });

  it('says chunks with more entries than the shape has axes, before compiling', () => {
    const d = clone();
    d.nodes[0].params.chunks = [100, 100, 100];
    expect(errorsOf(d)).toContain("nodes[0].params.chunks (node 'x'): has 3 entries but shape has 2 axes");
  });
});
