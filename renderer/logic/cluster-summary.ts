/**
 * What the cluster selector's summary says about where runs go (renderer/ui/ClusterSelector.tsx),
 * kept apart from the view so it can be tested without a DOM. A Dask target whose scheduler was
 * lost (the API's info.connected false, info.lost the reason) says so, with the address, rather
 * than reading as connected: the server reconnects at the next run, so the user need do nothing.
 */
import type { ClusterInfo } from '../../common/api';

export interface ClusterSummary {
  /** The toolbar summary's text. */
  text: string;
  /** Its tooltip. */
  title: string;
  /** The scheduler was lost: the panel shows `title` as a warning. */
  lost: boolean;
}

export function clusterSummary(target: string | null, info: ClusterInfo | null): ClusterSummary {
  if (target === null) return { text: 'This workstation', title: 'where runs go: this workstation', lost: false };
  if (info !== null && info.connected === false) {
    const why = info.lost ? ` (${info.lost})` : '';
    return { text: `Dask: lost the scheduler at ${info.scheduler}`, title: `lost the Dask scheduler at ${info.scheduler}${why}; the next run reconnects`, lost: true };
  }
  return { text: `Dask: ${target}`, title: `where runs go: the Dask cluster ${target}`, lost: false };
}
