/**
 * The worker's entry point for `trial` tasks (common/tasks.ts `{ kind: 'trial', op, params }`):
 * parses the params, keeps the worker's trial models and data sets, and runs one op.
 *
 *   train    { trial: TrialSpec, data: DataSpec, resumeFrom?: dir }  -> TrialResult
 *   stop     { trialId }                                             -> { freed: boolean }
 *   save     { trialId, dir }                                        -> { dir, epochs }
 *
 * A DataSpec names where rows come from and how to split them. Synthetic sources are generated in
 * the worker itself from their seed, so every worker builds the same rows with nothing sent; a
 * table source is looked up through the worker's `resolveTable` (its chunk store). Built data
 * sets are cached by their spec, so 24 trials on one worker generate and split the data once.
 */
import type * as arrow from 'apache-arrow';
import * as z from 'zod';
import { formatIssues } from '../../../common/tuning/space';
import { trialSpecSchema, type EpochRecord, type TrialResult } from '../../../common/tuning/trial';
import { dataSpecSchema, type DataSpec } from '../../../common/tuning/data-spec';
import { selectTfjsBackend, type BackendSelection, type TfjsEnvironment } from './backend';
import { builtOnce } from './built-once';
import { datasetFromArrow, makeClassificationAsync, makeRegressionAsync, type Dataset } from './datasets';
import { saveTrialModel } from './persist';
import { trainValidationSplit } from './split';
import type { TrialData } from './train';
import { nameSyntheticRows } from './cuda/device-data';
import { trainOnChosenBackend } from './trial-backend';
import { TrialModelStore } from './trial-store';


const trainParams = z.strictObject({ trial: trialSpecSchema, data: dataSpecSchema, resumeFrom: z.string().optional() });
const stopParams = z.strictObject({ trialId: z.string() });
const saveParams = z.strictObject({ trialId: z.string(), dir: z.string().min(1) });

export class TrialTaskError extends Error {
  override name = 'TrialTaskError';
}

function parse<T>(schema: z.ZodType<T>, input: unknown, where: string): T {
  const r = schema.safeParse(input);
  if (!r.success) throw new TrialTaskError(formatIssues(where, r.error.issues));
  return r.data;
}

export interface TrialTaskContext {
  onEpoch?: (record: EpochRecord) => void;
  shouldStop?: () => boolean;
  /** The worker's table for a `table` source ref. */
  resolveTable?: (ref: string) => arrow.Table | undefined;
}

export class TrialWorker {
  readonly store = new TrialModelStore();
  /** Promises (built-once.ts): two trials wanting the same rows while they are built share one build. */
  private readonly data = new Map<string, Promise<TrialData>>();
  private selection: BackendSelection | null = null;

  constructor(private readonly opts: { gpu: boolean; env?: TfjsEnvironment }) {}

  /** Selects the tfjs backend once per process; the answer is what the worker reports. */
  async init(): Promise<BackendSelection> {
    this.selection ??= await selectTfjsBackend(this.opts);
    return this.selection;
  }

  async run(op: string, params: unknown, ctx: TrialTaskContext = {}): Promise<TrialResult | { freed: boolean } | { dir: string; epochs: number }> {
    const where = `trial task '${op}' params`;
    switch (op) {
      case 'train': {
        const sel = await this.init();
        const p = parse(trainParams, params, where);
        const data = await this.dataFor(p.data, ctx, `${where}.data`);
        const opts = { store: this.store, resumeFrom: p.resumeFrom, onEpoch: ctx.onEpoch, shouldStop: ctx.shouldStop };
        return (await trainOnChosenBackend(sel, p.trial, data, opts)).result;
      }
      case 'stop':
        return { freed: this.store.delete(parse(stopParams, params, where).trialId) };
      case 'save': {
        const p = parse(saveParams, params, where);
        const m = this.store.get(p.trialId);
        if (!m) throw new TrialTaskError(`${where}.trialId: trial ${p.trialId} is not held by this worker`);
        await saveTrialModel(m, p.dir);
        return { dir: p.dir, epochs: m.meta.epochs };
      }
      default:
        throw new TrialTaskError(`unknown trial op '${op}' (known: train, stop, save)`);
    }
  }

  /** Frees every model and data set. */
  dispose(): void {
    this.store.clear();
    this.data.clear();
  }

  /** The rows of `spec`, built once (synthetic fills off the JS thread: the worker answers meanwhile). */
  private dataFor(spec: DataSpec, ctx: TrialTaskContext, where: string): Promise<TrialData> {
    return builtOnce(this.data, JSON.stringify(spec), () => this.build(spec, ctx, where));
  }

  private async build(spec: DataSpec, ctx: TrialTaskContext, where: string): Promise<TrialData> {
    const s = spec.source;
    let ds: Dataset;
    if (s.kind === 'classification') ds = await makeClassificationAsync(s);
    else if (s.kind === 'regression') ds = await makeRegressionAsync(s);
    else {
      const table = ctx.resolveTable?.(s.ref);
      if (!table) throw new TrialTaskError(`${where}.source.ref: no table '${s.ref}' on this worker`);
      ds = datasetFromArrow(table, s);
    }
    const split = trainValidationSplit(ds, spec.split);
    nameSyntheticRows(spec, split.train);
    return split;
  }
}
