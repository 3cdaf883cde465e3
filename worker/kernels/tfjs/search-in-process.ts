/**
 * Runs a whole search in this process: the SearchController's commands executed one after another
 * with trainTrial and one TrialModelStore. It is the reference for what the main process does
 * across workers (start/continue -> a trial task, stop -> free the model), and what tests and
 * bench/tuning use. The winner's model stays in the store; every other model is freed.
 */
import type { SearchController } from '../../../common/tuning/controller';
import { modelSpecFromParams, type EpochRecord, type MetricName, type ModelKind, type ModelSpec, type TrialSpec } from '../../../common/tuning/trial';
import type { LeaderboardEntry } from '../../../common/tuning/types';
import { trainTrial, type TrialData } from './train';
import type { TrainedModel } from './trained-model';
import { TrialModelStore } from './trial-store';

export interface InProcessOptions {
  /** The model node's settings; the search's params override them per trial. */
  base: Partial<ModelSpec> & { kind: ModelKind };
  metric: MetricName;
  store?: TrialModelStore;
  onEpoch?: (record: EpochRecord) => void;
}

export interface InProcessResult {
  leaderboard: LeaderboardEntry[];
  best: LeaderboardEntry | null;
  /** The winner's model (kept in the store), null if every trial failed. */
  model: TrainedModel | null;
  /** Epochs actually trained, summed over trials. */
  epochs: number;
}

export async function runSearchInProcess(controller: SearchController, data: TrialData, o: InProcessOptions): Promise<InProcessResult> {
  const store = o.store ?? new TrialModelStore();
  const specs = new Map<string, TrialSpec>();
  let epochs = 0;
  for (let cmds = controller.next(); cmds.length > 0; cmds = controller.next()) {
    for (const cmd of cmds) {
      if (cmd.kind === 'stop') {
        if (cmd.reason !== 'best') store.delete(cmd.trialId);
        continue;
      }
      let spec = specs.get(cmd.trialId);
      if (cmd.kind === 'start') {
        spec = { trialId: cmd.trialId, model: modelSpecFromParams(o.base, cmd.params), seed: cmd.seed, epochs: cmd.epochs, metric: o.metric };
        specs.set(cmd.trialId, spec);
      }
      if (!spec) throw new Error(`continue for trial ${cmd.trialId}, which never started`);
      spec = { ...spec, epochs: cmd.epochs };
      try {
        const r = await trainTrial(spec, data, { store, onEpoch: o.onEpoch });
        epochs += r.history.length;
        controller.report(cmd.trialId, r.epochs, r.score);
      } catch (e) {
        store.delete(cmd.trialId);
        controller.fail(cmd.trialId, (e as Error).message);
      }
    }
  }
  const best = controller.best();
  return { leaderboard: controller.leaderboard(), best, model: best ? (store.get(best.trialId) ?? null) : null, epochs };
}
