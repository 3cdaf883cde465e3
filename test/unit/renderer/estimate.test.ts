import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromDoc } from '../../../renderer/logic/graph-model';
import { createSession } from '../../../renderer/state/session';
import { fakeApi } from './fake-api';

const seed = () => fromDoc(JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8')));

describe('"N tasks when run" is never stale', () => {
  it('is cleared at the param change that makes it wrong, and kept when nodes only move', async () => {
    const api = fakeApi();
    const s = createSession(api, (fn) => fn());
    await s.init();
    s.loadDoc({ format: 'gpuflow.workflow/1', ...seed() }, null);
    s.run.getState().setValidation([], 3601);
    s.editor.getState().beginDrag();
    s.editor.getState().moveNodes({ x: { x: 5, y: 5 } });
    s.editor.getState().endDrag();
    expect(s.run.getState().tasksEstimate).toBe(3601);
    s.editor.getState().setWorkflowParam('chunks', 4000);
    expect(s.run.getState().tasksEstimate).toBeNull();
    s.dispose();
  });
});
