/**
 * Where the app's runs go: "This workstation" or a Dask cluster (tcp://host:8786, local:N,
 * local-cuda). Test connects on its own and lists the workers (threads, memory, GPUs); Use sends
 * later runs there and the server remembers it. Hidden where the API has no cluster support.
 * Self-contained (its own store, renderer/state/cluster-store.ts) and mounted in the toolbar.
 */
import { useEffect, useRef } from 'react';
import { useStore } from 'zustand';
import { errorMessages } from '../api/api-error';
import type { ClusterInfo } from '../../common/api';
import { clusterStore } from '../state/cluster-store';
import { clusterSummary } from '../logic/cluster-summary';
import { useRun, useSession } from './hooks';

const gib = (b: number) => `${(b / 2 ** 30).toFixed(1)} GiB`;

function Workers({ info }: { info: ClusterInfo }) {
  // Collapsed by default: the toolbar stays one line and nothing covers the canvas.
  return (
    <details className="gf-cluster-details">
      <summary data-testid="cluster-summary">{info.workers.length} Dask workers</summary>
      <ul className="gf-cluster-workers" data-testid="cluster-workers">
      {info.workers.map((w) => (
        <li key={w.name}>
          dask-{w.name}: {w.host}, {w.nthreads} threads, {gib(w.memory_limit)}
          {w.gpus.length ? `, ${w.gpus.map((g) => g.name).join(', ')}` : ''}
          {w.gpuflow ? '' : ' (gpuflow_dask missing)'}
        </li>
      ))}
      </ul>
    </details>
  );
}

export function ClusterSelector() {
  const { api } = useSession();
  const s = useStore(clusterStore);
  const supported = Boolean(api.cluster && api.selectCluster && api.testCluster);
  const popover = useRef<HTMLDetailsElement>(null);
  // Read again whenever a run starts or ends: a lost scheduler shows after the run that found it,
  // and the reconnect of the next run clears it.
  const runStatus = useRun((r) => r.status);

  useEffect(() => {
    if (!api.cluster) return;
    void api.cluster().then(
      (c) => clusterStore.getState().set({ target: c.target, info: c.info, address: c.target ?? c.remembered ?? '' }),
      () => undefined,
    );
  }, [api]);
  useEffect(() => {
    if (!api.cluster || runStatus === 'idle') return;
    // Target and info only: the address field keeps what the user is typing.
    void api.cluster().then(
      (c) => clusterStore.getState().set({ target: c.target, info: c.info }),
      () => undefined,
    );
  }, [api, runStatus]);

  if (!supported) return null;
  const summary = clusterSummary(s.target, s.info);
  const run = async (f: () => Promise<void>) => {
    s.set({ busy: true, error: null });
    try {
      await f();
    } catch (e) {
      s.set({ error: errorMessages(e).join('\n') });
    } finally {
      s.set({ busy: false });
    }
  };
  const test = () => run(async () => s.set({ tested: await api.testCluster!(s.address.trim()) }));
  const use = (address: string | null) =>
    run(async () => {
      s.set({ info: await api.selectCluster!(address), target: address === null ? null : address.trim() });
      // Chosen: the popover closes, and the summary says where runs go now.
      if (popover.current) popover.current.open = false;
    });

  // A popover like the File menu (gf-menu): the toolbar keeps one line at 1280 px, and the summary
  // always says where runs go.
  return (
    <details ref={popover} className="gf-menu gf-cluster" data-testid="cluster-selector">
      <summary title={summary.title} className={summary.lost ? 'gf-cluster-lost' : undefined} data-testid="cluster-target">
        {summary.text}
      </summary>
      <div className="gf-menu-list gf-cluster-panel">
        <label className="gf-cluster-label" htmlFor="gf-cluster-address">Dask scheduler</label>
        <input id="gf-cluster-address" aria-label="Dask cluster address" placeholder="tcp://host:8786 or local:2" value={s.address} onChange={(e) => s.set({ address: e.target.value })} data-testid="cluster-address" />
        <div className="gf-cluster-buttons">
          <button disabled={s.busy || !s.address.trim()} onClick={() => void test()} data-testid="cluster-test">
            Test
          </button>
          <button disabled={s.busy || !s.address.trim()} onClick={() => void use(s.address)} data-testid="cluster-use">
            Use
          </button>
          <button disabled={s.busy || s.target === null} onClick={() => void use(null)} data-testid="cluster-local">
            This workstation
          </button>
        </div>
        {summary.lost && (
          <span role="status" className="gf-cluster-error" data-testid="cluster-lost">
            {summary.title}
          </span>
        )}
        {s.error && (
          <span role="alert" className="gf-cluster-error" data-testid="cluster-error">
            {s.error}
          </span>
        )}
        {(s.tested ?? s.info) && <Workers info={(s.tested ?? s.info)!} />}
      </div>
    </details>
  );
}
