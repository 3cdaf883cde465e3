/**
 * The 'predict' task: the best model (a search-best-model output, packed) applied to a dataset's
 * rows, built in this worker from their spec like a trial's. Metrics use the trainer's own
 * validation scoring (train.ts evaluate), so they equal the leaderboard's when the rows are the
 * search's validation rows.
 */
import { z } from 'zod';
import type { JsonValue } from '../../../common/arrays';
import { formatIssues } from '../../../common/tuning/space';
import type { HandlerContext, HandlerResult } from '../../handlers';
import { makeClassification, makeRegression } from './datasets';
import { unpackModel, type PackedModel } from './pack';
import { predict } from './predict';
import { SearchTaskError } from './search-record';
import { backendLabel, workerBackend } from './search-tasks';
import { trainValidationSplit } from './split';
import { evaluate } from './train';
import { disposeModel } from './trained-model';
import { dataSpecSchema } from './trial-task';

const params = z.object({ data: dataSpecSchema, part: z.enum(['validation', 'all']), maxRows: z.number().int().min(0) });

export async function predictTask(raw: Record<string, unknown>, inputs: { kind: string; value?: unknown }[], ctx: HandlerContext): Promise<HandlerResult> {
  const r = params.safeParse(raw);
  if (!r.success) throw new SearchTaskError(formatIssues('predict params', r.error.issues));
  const p = r.data;
  const best = inputs[0]?.value as { trialId?: string; model?: PackedModel } | undefined;
  if (inputs[0]?.kind !== 'json' || !best?.model) throw new SearchTaskError('predict: input 0 is not a search best-model output');
  const sel = await workerBackend(ctx);
  const s = p.data.source;
  if (s.kind === 'table') throw new SearchTaskError('predict params.data.source: table sources are not supported yet');
  const all = s.kind === 'classification' ? makeClassification(s) : makeRegression(s);
  const rows = p.part === 'validation' ? trainValidationSplit(all, p.data.split).validation : all;
  const m = await unpackModel(best.model, `trial ${best.trialId}`);
  try {
    const pred = predict(m, rows.x, rows.nRows);
    const n = Math.min(rows.nRows, p.maxRows);
    const table: Record<string, JsonValue>[] = [];
    for (let i = 0; i < n; i++) {
      if (pred.task === 'regression') table.push({ row: i, prediction: pred.values[i], target: rows.y[i] });
      else {
        const probs = Array.from(pred.probabilities.subarray(i * pred.nClasses, (i + 1) * pred.nClasses));
        table.push({ row: i, prediction: pred.labels[i], target: rows.classes[rows.y[i]], probabilities: probs });
      }
    }
    const value = { trialId: best.trialId ?? null, task: rows.task, part: p.part, rows: rows.nRows, metrics: evaluate(m, rows), predictions: table };
    return { value: { kind: 'json', value: value as unknown as JsonValue }, backend: backendLabel(sel) };
  } finally {
    disposeModel(m.model);
  }
}
