/**
 * Worker-to-worker chunk transfer: each worker serves the chunks it holds on a loopback TCP port,
 * and fetches the dependencies of its tasks straight from the peers holding them, so chunk data
 * never passes through main. Framing: a request is [u32 length][JSON {token, keys}]; the reply is,
 * per key, [u32 length][JSON {key, found, header, sizes}] followed by the raw buffers. Every JSON
 * frame stays under MAX_HEADER (a bound on what a peer makes us buffer and parse before any
 * check): values, JSON ones included, travel in the buffers (common/codec.ts), so a task output's
 * size is not bounded by it (issue 26: a tuning trial's packed weights, megabytes).
 * The token (random per cluster) keeps other local processes from reading chunks.
 *
 * CUDA IPC (worker/resident/ipc.ts): a GPU worker's request may say `ipc: true`; a holder with a
 * device copy then answers a key with [JSON {key, found, ipc: {handle, exportId, dtype, shape,
 * bytes}}] and no buffers: the requester copies the block device to device and, after the last
 * key, sends [JSON {done: true}] and ends, which gives the holder its export buffers back. A
 * holder that cannot offer a key sends it through the host as above, with `ipcRefused` saying
 * why; a requester that cannot open a handle fetches that key again through the host.
 */
import net from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import type { ChunkValue } from '../common/arrays';
import { decodeValue, encodeValue, type ValueHeader } from '../common/codec';
import type { DeviceArrayRef, DeviceDType } from './resident/device-api';

/** A device buffer offered over CUDA IPC (the handle base64, 64 bytes). */
export interface IpcOffer {
  handle: string;
  exportId: number;
  dtype: DeviceDType;
  shape: number[];
  bytes: number;
}

/** The holder's side of IPC transfers. */
export interface PeerExporter {
  /** An offer for a held key, or why it goes through the host; undefined: not held. */
  offer(key: string): Promise<{ offer: IpcOffer } | { refused: string } | undefined>;
  /** The requester is done with these exports (`clean`), or went away before saying so. */
  release(exportIds: number[], clean: boolean): void;
}

/** The requester's side: copies an offered buffer into its own device memory, or throws why not. */
export interface PeerImporter {
  import(peer: string, offer: IpcOffer): Promise<DeviceArrayRef>;
}

/** A fetched chunk: on this worker's device (by IPC) or a host value, with why it was not IPC. */
export type Fetched = { via: 'ipc'; ref: DeviceArrayRef } | { via: 'host'; value: ChunkValue; reason?: string };

const DTYPES = new Set(['float64', 'float32', 'int32']);

function isOffer(x: unknown): x is IpcOffer {
  const o = x as Partial<IpcOffer> | null;
  return (
    typeof o === 'object' && o !== null && typeof o.handle === 'string' && Number.isSafeInteger(o.exportId) && typeof o.dtype === 'string' && DTYPES.has(o.dtype) &&
    Array.isArray(o.shape) && o.shape.every((d) => Number.isSafeInteger(d) && d >= 0) && Number.isSafeInteger(o.bytes) && (o.bytes ?? 0) > 0
  );
}

const MAX_HEADER = 1 << 20;

/** Reads exact byte counts from a socket. */
class FrameReader {
  private chunks: Buffer[] = [];
  private have = 0;
  private waiting: { n: number; resolve: (b: Buffer) => void; reject: (e: Error) => void } | null = null;
  private failed: Error | null = null;

  constructor(socket: net.Socket) {
    socket.on('data', (d: Buffer) => {
      this.chunks.push(d);
      this.have += d.length;
      this.pump();
    });
    const fail = (e: Error) => {
      this.failed = e;
      if (this.waiting) this.waiting.reject(e);
      this.waiting = null;
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('peer connection closed')));
  }

  /** Whether the connection is gone (closed or failed). */
  get closed(): boolean {
    return this.failed !== null;
  }

  read(n: number): Promise<Buffer> {
    if (this.failed && this.have < n) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.waiting = { n, resolve, reject };
      this.pump();
    });
  }

  private pump(): void {
    const w = this.waiting;
    if (!w || this.have < w.n) return;
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    const out = all.subarray(0, w.n);
    const rest = all.subarray(w.n);
    this.chunks = rest.length ? [rest] : [];
    this.have = rest.length;
    this.waiting = null;
    w.resolve(out);
  }

  async readJson(): Promise<unknown> {
    const len = (await this.read(4)).readUInt32LE(0);
    if (len > MAX_HEADER) throw new Error(`peer header of ${len} bytes exceeds ${MAX_HEADER}`);
    return JSON.parse((await this.read(len)).toString('utf8'));
  }
}

function frame(obj: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(obj), 'utf8');
  const head = Buffer.alloc(4);
  head.writeUInt32LE(body.length, 0);
  return Buffer.concat([head, body]);
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export interface PeerServer {
  port: number;
  close(): Promise<void>;
}

/**
 * A connection with no traffic either way for this long is closed (issue 19: idle connections to
 * a peer port were held forever, so any local process could pile them up).
 */
export const PEER_IDLE_MS = 30_000;

export interface PeerServerOptions {
  idleMs?: number;
  /** Offers device copies by CUDA IPC to requesters that ask for it. */
  exporter?: PeerExporter;
  /** Why this worker offers nothing by IPC, when it has no exporter (told to requesters). */
  noExportReason?: string;
}

/** Serves `lookup(key)` to peers presenting `token`. */
export function startPeerServer(token: string, lookup: (key: string) => ChunkValue | undefined | Promise<ChunkValue | undefined>, opts: PeerServerOptions = {}): Promise<PeerServer> {
  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    socket.setTimeout(opts.idleMs ?? PEER_IDLE_MS, () => socket.destroy());
    const reader = new FrameReader(socket);
    // Export buffers lent on this connection: given back when the requester says done, or
    // discarded when the connection goes without it (it may have died mid-copy).
    const lent: number[] = [];
    let clean = false;
    socket.on('close', () => {
      if (lent.length && opts.exporter) opts.exporter.release(lent.splice(0), clean);
    });
    void (async () => {
      try {
        const req = (await reader.readJson()) as { token?: unknown; keys?: unknown; ipc?: unknown };
        if (typeof req.token !== 'string' || !sameToken(req.token, token) || !Array.isArray(req.keys)) {
          socket.destroy();
          return;
        }
        const wantIpc = req.ipc === true;
        for (const key of req.keys) {
          let refused: string | undefined;
          if (wantIpc && typeof key === 'string') {
            if (opts.exporter) {
              const o = await opts.exporter.offer(key);
              if (o && 'offer' in o) {
                lent.push(o.offer.exportId);
                socket.write(frame({ key, found: true, ipc: o.offer }));
                continue;
              }
              refused = o?.refused;
            } else refused = opts.noExportReason ?? 'the holder cannot export device buffers';
          }
          // May copy a device-resident chunk to the host first (worker/resident/store.ts).
          const v = typeof key === 'string' ? await lookup(key) : undefined;
          if (!v) {
            socket.write(frame({ key, found: false }));
            continue;
          }
          const enc = encodeValue(v);
          socket.write(frame({ key, found: true, header: enc.header, sizes: enc.buffers.map((b) => b.byteLength), ...(refused ? { ipcRefused: refused } : {}) }));
          for (const b of enc.buffers) socket.write(b);
        }
        if (lent.length) {
          const done = (await reader.readJson()) as { done?: unknown };
          clean = done.done === true;
          if (clean) opts.exporter?.release(lent.splice(0), true);
        }
        socket.end();
      } catch {
        socket.destroy();
      }
    })();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      if (!addr || typeof addr === 'string') return reject(new Error('peer server has no port'));
      resolve({ port: addr.port, close: () => new Promise((r) => server.close(() => r())) });
    });
  });
}

/** Fetches `keys` from the peer at host:port. Missing keys are an error naming them. */
export async function fetchFromPeer(host: string, port: number, token: string, keys: string[]): Promise<Map<string, ChunkValue>> {
  const got = await fetchChunks(host, port, token, keys);
  const out = new Map<string, ChunkValue>();
  for (const [k, f] of got) if (f.via === 'host') out.set(k, f.value);
  return out;
}

/**
 * Fetches `keys` from the peer at host:port: by CUDA IPC where `importer` is given and the peer
 * offers a device copy, through the host otherwise (`noIpcReason`: why not asked). A key whose
 * offer cannot be imported is fetched again through the host, the error as its reason. On an
 * error, buffers already imported are handed to `onOrphan` (the caller frees them).
 */
export async function fetchChunks(
  host: string,
  port: number,
  token: string,
  keys: string[],
  opts: { importer?: PeerImporter; peer?: string; noIpcReason?: string; onOrphan?: (ref: DeviceArrayRef) => void } = {},
): Promise<Map<string, Fetched>> {
  const socket = net.connect({ host, port });
  socket.setNoDelay(true);
  const reader = new FrameReader(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const importer = opts.importer;
  socket.write(frame({ token, keys, ...(importer ? { ipc: true } : {}) }));
  const out = new Map<string, Fetched>();
  const again = new Map<string, string>();
  let offered = false;
  try {
    for (let i = 0; i < keys.length; i++) {
      const h = (await reader.readJson()) as { key: string; found: boolean; header?: ValueHeader; sizes?: number[]; ipc?: unknown; ipcRefused?: unknown };
      if (h.found && h.ipc !== undefined && importer) {
        offered = true;
        if (!isOffer(h.ipc)) throw new Error(`peer ${host}:${port} sent a malformed IPC offer for '${h.key}'`);
        if (reader.closed) {
          // The holder may already reuse or free its export buffer: do not read it.
          again.set(h.key, 'the holder closed the connection before the device copy');
          continue;
        }
        try {
          out.set(h.key, { via: 'ipc', ref: await importer.import(opts.peer ?? `${host}:${port}`, h.ipc) });
        } catch (e) {
          again.set(h.key, `IPC import failed: ${e instanceof Error ? e.message : String(e)}`);
        }
        continue;
      }
      if (!h.found || !h.header || !h.sizes) throw new Error(`peer ${host}:${port} does not hold '${h.key}'`);
      const bufs: Uint8Array[] = [];
      for (const n of h.sizes) bufs.push(await reader.read(n));
      const reason = typeof h.ipcRefused === 'string' ? h.ipcRefused : opts.noIpcReason;
      out.set(h.key, { via: 'host', value: decodeValue(h.header, bufs), ...(reason ? { reason } : {}) });
    }
  } catch (e) {
    socket.destroy();
    for (const f of out.values()) if (f.via === 'ipc') opts.onOrphan?.(f.ref);
    throw e;
  }
  // The holder takes its export buffers back once told the copies are done.
  if (offered) socket.end(frame({ done: true }));
  else socket.destroy();
  if (again.size) {
    try {
      const host2 = await fetchChunks(host, port, token, [...again.keys()]);
      for (const [k, f] of host2) if (f.via === 'host') out.set(k, { via: 'host', value: f.value, reason: again.get(k) });
    } catch (e) {
      for (const f of out.values()) if (f.via === 'ipc') opts.onOrphan?.(f.ref);
      throw e;
    }
  }
  return out;
}
