/** The cluster selector's state (renderer/ui/ClusterSelector.tsx): the address typed, the selected target, the last test. */
import { createStore } from 'zustand/vanilla';
import type { ClusterInfo } from '../../common/api';

export interface ClusterSelectorState {
  address: string;
  /** The target runs go to (null: this workstation). */
  target: string | null;
  info: ClusterInfo | null;
  tested: ClusterInfo | null;
  busy: boolean;
  error: string | null;
  set(p: Partial<Omit<ClusterSelectorState, 'set'>>): void;
}

export const clusterStore = createStore<ClusterSelectorState>((set) => ({
  address: '',
  target: null,
  info: null,
  tested: null,
  busy: false,
  error: null,
  set: (p) => set(p),
}));
