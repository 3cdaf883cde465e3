/** The cluster selector's summary (renderer/logic/cluster-summary.ts): where runs go, and a lost scheduler named with its address. */
import { describe, expect, it } from 'vitest';
import type { ClusterInfo } from '../../../common/api';
import { clusterSummary } from '../../../renderer/logic/cluster-summary';

const info = (extra: Partial<ClusterInfo>): ClusterInfo => ({
  target: 'tcp://127.0.0.1:8786',
  scheduler: 'tcp://127.0.0.1:8786',
  dashboard: null,
  python: '3.11',
  versions: {},
  workers: [],
  ...extra,
});

describe('clusterSummary', () => {
  it('says this workstation when no cluster is chosen', () => {
    expect(clusterSummary(null, null)).toEqual({ text: 'This workstation', title: 'where runs go: this workstation', lost: false });
  });

  it('names a connected Dask target by the address chosen', () => {
    expect(clusterSummary('local:2', info({ connected: true }))).toMatchObject({ text: 'Dask: local:2', lost: false });
    // Before the first connection there is no info yet: still the chosen target.
    expect(clusterSummary('tcp://127.0.0.1:8786', null)).toMatchObject({ text: 'Dask: tcp://127.0.0.1:8786', lost: false });
  });

  it('says the scheduler was lost, at which address and why, and that the next run reconnects', () => {
    const s = clusterSummary('local:2', info({ scheduler: 'tcp://127.0.0.1:40111', connected: false, lost: 'its connection closed' }));
    expect(s).toEqual({
      text: 'Dask: lost the scheduler at tcp://127.0.0.1:40111',
      title: 'lost the Dask scheduler at tcp://127.0.0.1:40111 (its connection closed); the next run reconnects',
      lost: true,
    });
  });
});
