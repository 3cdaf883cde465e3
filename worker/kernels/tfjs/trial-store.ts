/**
 * A worker's trials kept in memory by trial id, so successive halving can continue a trial for
 * more epochs with its weights and optimizer state intact. `stop` commands end here (`delete`),
 * which frees the tensors at once.
 */
import { disposeModel, type TrainedModel } from './trained-model';

export class TrialModelStore {
  private readonly models = new Map<string, TrainedModel>();

  get(trialId: string): TrainedModel | undefined {
    return this.models.get(trialId);
  }

  set(trialId: string, m: TrainedModel): void {
    const old = this.models.get(trialId);
    if (old && old.model !== m.model) disposeModel(old.model);
    this.models.set(trialId, m);
  }

  /** Frees the trial's model; false if it was not here. */
  delete(trialId: string): boolean {
    const m = this.models.get(trialId);
    if (!m) return false;
    disposeModel(m.model);
    this.models.delete(trialId);
    return true;
  }

  clear(): void {
    for (const id of [...this.models.keys()]) this.delete(id);
  }

  get size(): number {
    return this.models.size;
  }

  ids(): string[] {
    return [...this.models.keys()];
  }
}
