/**
 * CUDA IPC between FakeDevices (fake-device.ts), for the IPC tests without a GPU: a "driver"
 * shared by two fake workers maps handles to the bytes exported under them, as the real driver
 * maps a cudaIpcMemHandle_t to the exporter's buffer. Export buffers are copies (as the real
 * path copies into a cudaMalloc'd buffer); an open can be made to fail the way a GPU pair
 * without peer access does.
 */
import { randomBytes } from 'node:crypto';
import type { NDArray } from '../../../common/arrays';
import type { DeviceDType } from '../../../worker/resident/device-api';
import type { IpcApi } from '../../../worker/resident/ipc';
import type { FakeDevice } from './fake-device';

export class FakeIpcDriver {
  readonly mapped = new Map<string, NDArray>();
  /** When set, every open fails with this message. */
  openFails: string | null = null;
}

export class FakeIpc implements IpcApi {
  private next = 1;
  /** Export buffers lent out, by export id (their handles). */
  readonly lent = new Map<number, string>();
  readonly released: Array<{ exportId: number; reuse: boolean }> = [];
  exports = 0;
  imports = 0;

  constructor(
    private readonly dev: FakeDevice,
    private readonly driver: FakeIpcDriver,
  ) {}

  async exportBlock(id: number): Promise<{ exportId: number; handle: Uint8Array }> {
    const a = this.dev.buffers.get(id);
    if (!a) throw new Error(`cudaIpcExport: no device buffer ${id}`);
    const handle = randomBytes(64);
    this.driver.mapped.set(handle.toString('hex'), { dtype: a.dtype, shape: [...a.shape], data: a.data.slice() });
    const exportId = this.next++;
    this.lent.set(exportId, handle.toString('hex'));
    this.exports++;
    return { exportId, handle: new Uint8Array(handle) };
  }

  async releaseExport(exportId: number, reuse: boolean): Promise<void> {
    const h = this.lent.get(exportId);
    if (h === undefined) throw new Error(`release of unknown export ${exportId}`);
    this.lent.delete(exportId);
    this.driver.mapped.delete(h);
    this.released.push({ exportId, reuse });
  }

  async importBlock(handle: Uint8Array, bytes: number, dtype: DeviceDType): Promise<number> {
    if (this.driver.openFails) throw new Error(this.driver.openFails);
    const a = this.driver.mapped.get(Buffer.from(handle).toString('hex'));
    if (!a) throw new Error('CUDA cudaIpcOpenMemHandle: invalid argument (cudaErrorInvalidValue)');
    if (a.data.byteLength !== bytes || a.dtype !== dtype) throw new Error(`import of ${bytes} bytes ${dtype}, export holds ${a.data.byteLength} bytes ${a.dtype}`);
    this.imports++;
    return this.dev.adopt(a);
  }
}
