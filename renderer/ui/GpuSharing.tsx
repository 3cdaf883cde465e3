/**
 * A small label under a run's status saying how many GPU workers shared each GPU (several trials
 * on one GPU at once), with why in its tooltip; nothing for one per GPU.
 */
import type { RunStats } from '../../common/results';
import { gpuSharingLabel } from '../logic/gpu-sharing';

export function GpuSharing({ stats }: { stats: RunStats }) {
  const label = gpuSharingLabel(stats);
  if (label === null) return null;
  return (
    <div className="gf-muted" data-testid="gpu-sharing" data-per-gpu={stats.gpuWorkersPerDevice?.perDevice} title={label.why}>
      {label.text}
    </div>
  );
}
