/** The backend interface, defined in common/backend.ts (native/ implements it too); kept here for the worker's kernels. */
export type { ArrayBackend, BackendName } from '../../common/backend';
