/**
 * The chunks a worker holds, wherever they live. A value is in host memory (a ChunkValue), in
 * device memory (a DeviceArrayRef, on GPU workers with device residency on), or both: a chunk a
 * cuda task made stays on the device for the next cuda task, and is copied to the host once,
 * lazily, when it leaves the worker (peer fetch, value to main) or a non-cuda kernel reads it.
 *
 * Device memory is bounded by `deviceLimit`: before a buffer is made, the least recently used
 * device copies that no task holds are spilled (copied to the host if they have no host copy,
 * then freed). `heldBytes` counts each value once, wherever it lives, so the worker's memory
 * limit means what it meant before. Tasks hold their inputs through leases: an input released
 * (or chosen for a spill) while a task reads it is freed when the task lets go.
 *
 * A device value is one buffer (an array) or a bundle of them (a QR's or SVD's factors, which
 * TSQR's tasks and the one-task qr / svd keep on the device: linalg.ts); a bundle comes back to
 * the host as a value of kind 'arrays', part by part.
 */
import type { ChunkValue, NDArray } from '../../common/arrays';
import { valueBytes } from '../../common/arrays';
import type { DeviceApi, DeviceArrayRef, DeviceDType, DeviceValue } from './device-api';
import { deviceIds, isDeviceRef } from './device-api';

/** Host <-> device traffic of one task, reported with it (main/engine/run.ts puts it on the task event). */
export type { DeviceTraffic } from '../../common/messages';

interface Entry {
  key: string;
  host?: ChunkValue;
  device?: DeviceValue;
  bytes: number;
  pins: number;
  lastUse: number;
  released: boolean;
  /** Set while the entry's device copy is being spilled. */
  spilling?: Promise<void>;
  downloading?: Promise<ChunkValue>;
}

/** An input as a device kernel gets it; `temp`: a copy for this task alone, to `freeTemp` after it. */
export interface DeviceInput {
  value: DeviceValue | ChunkValue;
  reused: boolean;
  uploaded: number;
  temp?: boolean;
}

/** An input as the planner sees it (store.inputInfo). */
export type InputInfo = { dtype: string; shape: number[]; device?: boolean } | { parts: string[]; device: boolean };

/** A task's hold on a value: it stays readable (and on the device) until `release()`. */
export interface Lease {
  readonly key: string;
  release(): void;
}

export interface StoreStats {
  uploads: number;
  uploadBytes: number;
  downloads: number;
  downloadBytes: number;
  spills: number;
  spillBytes: number;
  frees: number;
}

const UPLOADABLE = new Set(['float64', 'float32', 'int32']);

function isUploadable(a: NDArray): a is NDArray & { dtype: DeviceDType } {
  return UPLOADABLE.has(a.dtype);
}

class EntryLease implements Lease {
  private done = false;
  constructor(readonly entry: Entry, private readonly store: ResidentStore) {}
  get key(): string {
    return this.entry.key;
  }
  release(): void {
    if (this.done) return;
    this.done = true;
    this.store.unpin(this.entry);
  }
}

export class ResidentStore {
  private readonly entries = new Map<string, Entry>();
  private clock = 0;
  /** Bytes of values held (each once, wherever it lives). */
  heldBytes = 0;
  /** Bytes of live device buffers this store owns. */
  deviceBytes = 0;
  readonly stats: StoreStats = { uploads: 0, uploadBytes: 0, downloads: 0, downloadBytes: 0, spills: 0, spillBytes: 0, frees: 0 };

  /** `api` null: a host-only store (CPU workers, or residency off). */
  constructor(
    private readonly api: DeviceApi | null,
    readonly deviceLimit: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** Where a held value lives (tests and diagnostics). */
  where(key: string): { host: boolean; device: boolean } | undefined {
    const e = this.entries.get(key);
    return e && { host: e.host !== undefined, device: e.device !== undefined };
  }

  /** dtype and shape of a held array, wherever it lives; null for other values. */
  arrayInfo(key: string): { dtype: string; shape: number[] } | null {
    const e = this.entries.get(key);
    if (!e) return null;
    if (e.device) return isDeviceRef(e.device) ? { dtype: e.device.dtype, shape: e.device.shape } : null;
    return e.host?.kind === 'array' ? { dtype: e.host.array.dtype, shape: e.host.array.shape } : null;
  }

  /** What the planner (runner.ts) needs of an input: an array's dtype and shape, or a bundle's part names, and whether it is on the device. */
  inputInfo(key: string): InputInfo | null {
    const e = this.entries.get(key);
    if (!e) return null;
    if (e.device && !isDeviceRef(e.device)) return { parts: Object.keys(e.device.parts), device: true };
    const a = this.arrayInfo(key);
    return a && { ...a, device: e.device !== undefined };
  }

  putHost(key: string, value: ChunkValue): void {
    this.release(key);
    this.entries.set(key, { key, host: value, bytes: valueBytes(value), pins: 0, lastUse: ++this.clock, released: false });
    this.heldBytes += valueBytes(value);
  }

  /** Takes ownership of a device buffer (or bundle of them) as the value of `key`. */
  putDevice(key: string, ref: DeviceValue): void {
    this.release(key);
    this.entries.set(key, { key, device: ref, bytes: ref.bytes, pins: 0, lastUse: ++this.clock, released: false });
    this.heldBytes += ref.bytes;
    this.deviceBytes += ref.bytes;
  }

  /** Forgets a value; its device memory is freed now, or when the last task holding it lets go. */
  release(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.heldBytes -= e.bytes;
    e.released = true;
    // A task holding a lease still reads the host value; the entry goes with its last lease.
    if (e.pins === 0 && !e.spilling) this.freeDevice(e);
  }

  lease(key: string): Lease | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    e.pins++;
    e.lastUse = ++this.clock;
    return new EntryLease(e, this);
  }

  /** @internal (EntryLease) */
  unpin(e: Entry): void {
    e.pins--;
    if (e.released && e.pins === 0 && !e.spilling) this.freeDevice(e);
  }

  /** The host value of a held key, copied from the device once if it lives there only. */
  async hostValue(key: string): Promise<ChunkValue | undefined> {
    const l = this.lease(key);
    if (!l) return undefined;
    try {
      return await this.hostOf(l);
    } finally {
      l.release();
    }
  }

  /** The host value of a leased entry (downloaded once, then kept beside the device copy). */
  async hostOf(lease: Lease): Promise<ChunkValue> {
    const e = (lease as EntryLease).entry;
    if (e.spilling) await e.spilling;
    if (e.host) return e.host;
    if (!e.downloading) {
      const ref = e.device;
      if (!ref || !this.api) throw new Error(`'${e.key}' has no host or device copy`);
      const api = this.api;
      e.downloading = this.download(api, ref).then((v) => {
        if (!e.released) e.host = v;
        return v;
      });
      e.downloading.catch(() => undefined).finally(() => (e.downloading = undefined));
    }
    return e.downloading;
  }

  /**
   * The device copy of a leased entry, if it has one (once a spill in progress is over): IPC exports
   * read it. A factor bundle (resident TSQR's {q, r}) is not one buffer: it leaves by the host path.
   */
  async deviceRefOf(lease: Lease): Promise<DeviceArrayRef | undefined> {
    const e = (lease as EntryLease).entry;
    if (e.spilling) await e.spilling;
    return e.device && isDeviceRef(e.device) ? e.device : undefined;
  }

  /**
   * The value of a leased entry for a device kernel: its device copy (uploaded now, and kept, if
   * it has none), or its host value when it is not an array that a device buffer holds.
   */
  async deviceOf(lease: Lease): Promise<DeviceInput> {
    const e = (lease as EntryLease).entry;
    if (e.spilling) await e.spilling;
    if (e.device) return { value: e.device, reused: true, uploaded: 0 };
    const host = e.host;
    if (!host || host.kind !== 'array' || !isUploadable(host.array) || !this.api) {
      if (!host) throw new Error(`'${e.key}' has no host or device copy`);
      return { value: host, reused: false, uploaded: 0 };
    }
    const array = host.array;
    const bytes = array.data.byteLength;
    await this.makeRoom(bytes);
    const id = await this.api.upload(array);
    this.stats.uploads++;
    this.stats.uploadBytes += bytes;
    const ref: DeviceArrayRef = { id, dtype: array.dtype, shape: array.shape, bytes };
    if (e.device || e.released) {
      // Another task uploaded it meanwhile, or it was released: this copy serves this task only.
      return { value: ref, reused: false, uploaded: bytes, temp: true };
    }
    e.device = ref;
    this.deviceBytes += bytes;
    return { value: ref, reused: false, uploaded: bytes };
  }

  /**
   * Spills least recently used device copies nobody holds until `bytes` more fit under the
   * limit (or nothing more can go: then the allocation is tried anyway, and the device says).
   */
  async makeRoom(bytes: number): Promise<void> {
    while (this.deviceBytes + bytes > this.deviceLimit) {
      let victim: Entry | undefined;
      for (const e of this.entries.values())
        if (e.device && e.pins === 0 && !e.spilling && (!victim || e.lastUse < victim.lastUse)) victim = e;
      if (!victim) return;
      await this.spill(victim);
    }
  }

  private spill(e: Entry): Promise<void> {
    const ref = e.device!;
    this.stats.spills++;
    this.stats.spillBytes += ref.bytes;
    // Counted as gone at once, so concurrent makeRoom calls pick other victims.
    this.deviceBytes -= ref.bytes;
    e.spilling = (async () => {
      try {
        if (!e.host && !e.released && this.api) {
          const v = await this.download(this.api, ref);
          if (!e.released) e.host = v;
        }
      } finally {
        e.device = undefined;
        e.spilling = undefined;
        this.freeIds(ref);
      }
    })();
    return e.spilling;
  }

  private freeDevice(e: Entry): void {
    if (!e.device || !this.api) return;
    this.freeIds(e.device);
    this.deviceBytes -= e.device.bytes;
    e.device = undefined;
  }

  /** A device value's host copy: an array, or a bundle downloaded part by part. */
  private async download(api: DeviceApi, ref: DeviceValue): Promise<ChunkValue> {
    let v: ChunkValue;
    if (isDeviceRef(ref)) v = { kind: 'array', array: await api.download(ref) };
    else {
      const names = Object.keys(ref.parts);
      const got = await Promise.all(names.map((n) => api.download(ref.parts[n])));
      v = { kind: 'arrays', arrays: Object.fromEntries(names.map((n, i) => [n, got[i]])) };
    }
    this.stats.downloads++;
    this.stats.downloadBytes += ref.bytes;
    return v;
  }

  private freeIds(ref: DeviceValue): void {
    for (const id of deviceIds(ref)) this.api?.free(id);
    this.stats.frees++;
  }

  /** Frees a device buffer (or bundle) that no entry owns (a task's temporary). */
  freeTemp(ref: DeviceValue): void {
    this.freeIds(ref);
  }
}
