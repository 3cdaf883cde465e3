/**
 * Worker-to-worker chunk transfer: each worker serves the chunks it holds on a loopback TCP port,
 * and fetches the dependencies of its tasks straight from the peers holding them, so chunk data
 * never passes through main. Framing: a request is [u32 length][JSON {token, keys}]; the reply is,
 * per key, [u32 length][JSON {key, found, header, sizes}] followed by the raw buffers.
 * The token (random per cluster) keeps other local processes from reading chunks.
 */
import net from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import type { ChunkValue } from '../common/arrays';
import { decodeValue, encodeValue, type ValueHeader } from '../common/codec';

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

/** Serves `lookup(key)` to peers presenting `token`. */
export function startPeerServer(token: string, lookup: (key: string) => ChunkValue | undefined | Promise<ChunkValue | undefined>, opts: { idleMs?: number } = {}): Promise<PeerServer> {
  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    socket.setTimeout(opts.idleMs ?? PEER_IDLE_MS, () => socket.destroy());
    const reader = new FrameReader(socket);
    void (async () => {
      try {
        const req = (await reader.readJson()) as { token?: unknown; keys?: unknown };
        if (typeof req.token !== 'string' || !sameToken(req.token, token) || !Array.isArray(req.keys)) {
          socket.destroy();
          return;
        }
        for (const key of req.keys) {
          // May copy a device-resident chunk to the host first (worker/resident/store.ts).
          const v = typeof key === 'string' ? await lookup(key) : undefined;
          if (!v) {
            socket.write(frame({ key, found: false }));
            continue;
          }
          const enc = encodeValue(v);
          socket.write(frame({ key, found: true, header: enc.header, sizes: enc.buffers.map((b) => b.byteLength) }));
          for (const b of enc.buffers) socket.write(b);
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
  const socket = net.connect({ host, port });
  socket.setNoDelay(true);
  const reader = new FrameReader(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.write(frame({ token, keys }));
  const out = new Map<string, ChunkValue>();
  try {
    for (let i = 0; i < keys.length; i++) {
      const h = (await reader.readJson()) as { key: string; found: boolean; header?: ValueHeader; sizes?: number[] };
      if (!h.found || !h.header || !h.sizes) throw new Error(`peer ${host}:${port} does not hold '${h.key}'`);
      const bufs: Uint8Array[] = [];
      for (const n of h.sizes) bufs.push(await reader.read(n));
      out.set(h.key, decodeValue(h.header, bufs));
    }
  } finally {
    socket.destroy();
  }
  return out;
}
