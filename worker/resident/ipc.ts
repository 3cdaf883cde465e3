/**
 * Device-to-device chunk transfer between GPU workers with CUDA IPC, over the peer connection
 * (worker/peer.ts carries the 64-byte handle in its JSON header; chunk data never passes through
 * main or host memory). The exporter copies the block into an exportable buffer and offers its
 * handle; the importer opens it, copies into a device buffer of its own and closes it; then the
 * exporter takes the buffer back (native/src/cuda_ipc.h says why a copy and how it is cached).
 *
 * Anything that keeps a chunk from going by IPC sends it through the host as before, and the
 * reason goes into the task's transfer record (worker/main.ts): a holder without a device copy
 * of it, an importer without device residency (a CPU worker), a peer on another host, or an
 * export / open error (no peer access between the GPUs, a driver without IPC). After an open
 * error the importer stops asking that peer for IPC, so a pair that cannot do it pays once.
 */
import type { NativeAddon } from '../../native/index';
import type { IpcOffer, PeerExporter, PeerImporter } from '../peer';
import type { DeviceArrayRef, DeviceDType } from './device-api';
import type { ResidentStore } from './store';

/** What the IPC path asks of a device (the addon's cudaIpc* calls; unit tests fake it). */
export interface IpcApi {
  /** Copies buffer `id` into an export buffer; its handle (64 bytes) and the export's id. */
  exportBlock(id: number): Promise<{ exportId: number; handle: Uint8Array }>;
  /** Takes an export buffer back: kept for reuse, or freed (its importer vanished mid-copy). */
  releaseExport(exportId: number, reuse: boolean): Promise<void>;
  /** Opens a handle, copies `bytes` into a new device buffer, closes it; resolves with the buffer's id. */
  importBlock(handle: Uint8Array, bytes: number, dtype: DeviceDType): Promise<number>;
}

export function addonIpcApi(addon: NativeAddon): IpcApi {
  return {
    exportBlock: (id) => addon.cudaIpcExport(id),
    releaseExport: async (exportId, reuse) => void (await addon.cudaIpcRelease(exportId, reuse)),
    importBlock: (handle, bytes, dtype) => addon.cudaIpcImport(handle, bytes, dtype),
  };
}

const IPC_HANDLE_BYTES = 64;

/** Serves IPC offers of the device copies a store holds. */
export function residentExporter(store: ResidentStore, api: IpcApi, onError: (message: string) => void = () => undefined, graceMs = 60_000): PeerExporter {
  return {
    async offer(key) {
      const lease = store.lease(key);
      if (!lease) return undefined;
      try {
        const ref = await store.deviceRefOf(lease);
        if (!ref) return { refused: 'the holder has no device copy of it' };
        if (ref.bytes === 0) return { refused: 'an empty array' };
        // The native call holds the block until its copy is done, so the lease may go after it.
        const { exportId, handle } = await api.exportBlock(ref.id);
        return { offer: { handle: Buffer.from(handle).toString('base64'), exportId, dtype: ref.dtype, shape: ref.shape, bytes: ref.bytes } };
      } catch (e) {
        return { refused: `export failed: ${e instanceof Error ? e.message : String(e)}` };
      } finally {
        lease.release();
      }
    },
    release(exportIds, clean) {
      const give = (id: number) => api.releaseExport(id, clean).catch((e: unknown) => onError(`releasing IPC export ${id}: ${e instanceof Error ? e.message : String(e)}`));
      // A requester that went away without saying done may, if it lives, still have the buffer
      // open, and freeing it under an open mapping is undefined: it is freed after a grace period.
      if (clean) exportIds.forEach(give);
      else setTimeout(() => exportIds.forEach(give), graceMs).unref();
    },
  };
}

/**
 * Imports IPC offers into a store's device memory. Remembers peers whose handles it could not
 * open (`offFor`): later fetches from them go through the host without trying again.
 */
export class ResidentImporter implements PeerImporter {
  private readonly off = new Map<string, string>();

  constructor(
    private readonly store: ResidentStore,
    private readonly api: IpcApi,
  ) {}

  /** Why IPC is off with this peer (after an open error), or undefined. */
  offFor(peer: string): string | undefined {
    return this.off.get(peer);
  }

  async import(peer: string, offer: IpcOffer): Promise<DeviceArrayRef> {
    const handle = Buffer.from(offer.handle, 'base64');
    if (handle.length !== IPC_HANDLE_BYTES) throw new Error(`IPC handle of ${handle.length} bytes, want ${IPC_HANDLE_BYTES}`);
    const n = offer.shape.reduce((a, b) => a * b, 1);
    const width = offer.dtype === 'float64' ? 8 : 4;
    if (n * width !== offer.bytes) throw new Error(`IPC offer of ${offer.bytes} bytes for ${offer.dtype}[${offer.shape.join(', ')}]`);
    await this.store.makeRoom(offer.bytes);
    try {
      const id = await this.api.importBlock(new Uint8Array(handle), offer.bytes, offer.dtype);
      return { id, dtype: offer.dtype, shape: offer.shape, bytes: offer.bytes };
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      // An open that fails will fail again for this pair (no peer access, no IPC support).
      if (/cudaIpcOpenMemHandle/.test(message)) this.off.set(peer, `IPC with ${peer} failed before: ${message}`);
      throw e;
    }
  }
}
