/** The examples menu: every workflow file in examples/, validated as it is read. */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExampleInfo } from '../../common/api';
import type { WorkflowDoc } from '../../common/workflow';

export function examplesDir(): string {
  if (process.env.GPUFLOW_EXAMPLES) return process.env.GPUFLOW_EXAMPLES;
  const here = path.dirname(fileURLToPath(import.meta.url));
  // From main/api (sources) and from out/main (bundle) alike, examples/ is two levels up.
  return path.resolve(here, '../../examples');
}

export async function listExamples(dir = examplesDir()): Promise<ExampleInfo[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  } catch {
    return [];
  }
  const out: ExampleInfo[] = [];
  for (const file of names) {
    try {
      const doc = JSON.parse(await readFile(path.join(dir, file), 'utf8')) as WorkflowDoc;
      out.push({ name: doc.name ?? file.replace(/\.json$/, ''), file, doc });
    } catch {
      // A broken example is skipped rather than breaking the menu; `npm test` validates them all.
    }
  }
  return out;
}
