// Chunks between two workers' stores over the real peer protocol (worker/peer.ts, loopback TCP)
// with CUDA IPC faked (fake-ipc.ts): a device copy goes device to device and never through the
// host, the exporter gets its buffer back once the importer is done, and every case that cannot
// use IPC falls back to the host path with its reason.
import net from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { NDArray } from '../../../common/arrays';
import { fetchChunks, startPeerServer, type PeerServer } from '../../../worker/peer';
import { ResidentImporter, residentExporter } from '../../../worker/resident/ipc';
import { ResidentStore } from '../../../worker/resident/store';
import { FakeDevice } from './fake-device';
import { FakeIpc, FakeIpcDriver } from './fake-ipc';

const TOKEN = 'ipc-test-token-0123456789';

function matrix(r: number, c: number, f: (i: number) => number): NDArray {
  return { dtype: 'float64', shape: [r, c], data: Float64Array.from({ length: r * c }, (_, i) => f(i)) };
}

/** A worker as far as transfers go: a device, a store, its IPC, its peer server. */
async function worker(driver: FakeIpcDriver, opts: { exporter?: boolean; noExportReason?: string; graceMs?: number } = {}) {
  const dev = new FakeDevice();
  const store = new ResidentStore(dev, 1e9);
  const ipc = new FakeIpc(dev, driver);
  const server: PeerServer = await startPeerServer(TOKEN, (k) => store.hostValue(k), {
    exporter: opts.exporter === false ? undefined : residentExporter(store, ipc, undefined, opts.graceMs ?? 0),
    noExportReason: opts.noExportReason,
  });
  // Closed when the test is over, whether it passed or not.
  onTestFinished(() => server.close());
  return { dev, store, ipc, server, importer: new ResidentImporter(store, ipc) };
}

async function onDevice(w: Awaited<ReturnType<typeof worker>>, key: string, a: NDArray): Promise<void> {
  const id = await w.dev.upload(a);
  w.store.putDevice(key, { id, dtype: 'float64', shape: a.shape, bytes: a.data.byteLength });
}

const until = async (f: () => boolean) => {
  for (let i = 0; i < 200 && !f(); i++) await new Promise((r) => setTimeout(r, 5));
};

describe('chunk transfer by CUDA IPC between workers', () => {
  it('moves a device copy device to device, and the exporter gets its buffer back', async () => {
    const driver = new FakeIpcDriver();
    const [a, b] = [await worker(driver), await worker(driver)];
    const x = matrix(3, 4, (i) => i * 0.5 - 1);
    await onDevice(a, 'x', x);
    const got = await fetchChunks('127.0.0.1', a.server.port, TOKEN, ['x'], { importer: b.importer, peer: 'a' });
    const f = got.get('x')!;
    expect(f.via).toBe('ipc');
    if (f.via !== 'ipc') return;
    expect(f.ref).toMatchObject({ dtype: 'float64', shape: [3, 4], bytes: 96 });
    expect(Array.from(b.dev.buffers.get(f.ref.id)!.data as Float64Array)).toEqual(Array.from(x.data as Float64Array));
    // Nothing went through host memory on either side.
    expect([a.dev.downloads, b.dev.uploads, a.store.stats.downloads]).toEqual([0, 0, 0]);
    await until(() => a.ipc.released.length > 0);
    expect(a.ipc.released).toEqual([{ exportId: 1, reuse: true }]);
    expect(a.ipc.lent.size).toBe(0);
  });

  it('mixes IPC and host transfers in one request, each with why', async () => {
    const driver = new FakeIpcDriver();
    const [a, b] = [await worker(driver), await worker(driver)];
    await onDevice(a, 'dev', matrix(2, 2, (i) => i));
    a.store.putHost('host', { kind: 'array', array: matrix(2, 3, (i) => 10 + i) });
    a.store.putHost('meta', { kind: 'json', value: { n: 1 } });
    const got = await fetchChunks('127.0.0.1', a.server.port, TOKEN, ['dev', 'host', 'meta'], { importer: b.importer, peer: 'a' });
    expect(got.get('dev')!.via).toBe('ipc');
    expect(got.get('host')).toEqual({ via: 'host', value: { kind: 'array', array: matrix(2, 3, (i) => 10 + i) }, reason: 'the holder has no device copy of it' });
    expect(got.get('meta')).toMatchObject({ via: 'host', value: { kind: 'json', value: { n: 1 } } });
    await until(() => a.ipc.released.length > 0);
    expect(a.ipc.released.map((r) => r.reuse)).toEqual([true]);
  });

  it('fetches through the host when the handle cannot be opened, and stops asking that peer', async () => {
    const driver = new FakeIpcDriver();
    const [a, b] = [await worker(driver), await worker(driver)];
    const x = matrix(4, 2, (i) => i * i);
    await onDevice(a, 'x', x);
    driver.openFails = 'CUDA cudaIpcOpenMemHandle: peer access is not supported between these two devices (cudaErrorPeerAccessUnsupported)';
    const got = await fetchChunks('127.0.0.1', a.server.port, TOKEN, ['x'], { importer: b.importer, peer: 'a' });
    const f = got.get('x')!;
    expect(f.via).toBe('host');
    if (f.via !== 'host') return;
    expect(f.value).toEqual({ kind: 'array', array: x });
    expect(f.reason).toMatch(/^IPC import failed: CUDA cudaIpcOpenMemHandle: peer access is not supported/);
    expect(b.importer.offFor('a')).toMatch(/cudaErrorPeerAccessUnsupported/);
    expect(b.importer.offFor('c')).toBeUndefined();
    // The export was offered, then given back when the requester said it was done.
    await until(() => a.ipc.released.length > 0);
    expect(a.ipc.released).toEqual([{ exportId: 1, reuse: true }]);
    expect(b.dev.buffers.size).toBe(0);
  });

  it('goes through the host when the holder cannot export (a CPU worker) or the requester cannot import', async () => {
    const driver = new FakeIpcDriver();
    const cpu = await worker(driver, { exporter: false, noExportReason: 'this worker keeps no device copies (cpu worker)' });
    const gpu = await worker(driver);
    cpu.store.putHost('c', { kind: 'array', array: matrix(1, 3, (i) => i + 1) });
    const fromCpu = await fetchChunks('127.0.0.1', cpu.server.port, TOKEN, ['c'], { importer: gpu.importer, peer: 'cpu0' });
    expect(fromCpu.get('c')).toEqual({ via: 'host', value: { kind: 'array', array: matrix(1, 3, (i) => i + 1) }, reason: 'this worker keeps no device copies (cpu worker)' });
    await onDevice(gpu, 'g', matrix(2, 2, (i) => -i));
    const toCpu = await fetchChunks('127.0.0.1', gpu.server.port, TOKEN, ['g'], { noIpcReason: 'cpu worker' });
    expect(toCpu.get('g')).toEqual({ via: 'host', value: { kind: 'array', array: matrix(2, 2, (i) => -i) }, reason: 'cpu worker' });
    expect(gpu.ipc.exports).toBe(0);
    expect(gpu.dev.downloads).toBe(1);
  });

  it('exports nothing to a request with a wrong token', async () => {
    const driver = new FakeIpcDriver();
    const [a, b] = [await worker(driver), await worker(driver)];
    await onDevice(a, 'x', matrix(2, 2, (i) => i));
    await expect(fetchChunks('127.0.0.1', a.server.port, 'wrong-token-0123456789', ['x'], { importer: b.importer })).rejects.toThrow(/closed/);
    expect(a.ipc.exports).toBe(0);
  });

  it('frees, not reuses, an export whose requester went away without saying done, after a grace period', async () => {
    const driver = new FakeIpcDriver();
    const a = await worker(driver, { graceMs: 100 });
    await onDevice(a, 'x', matrix(2, 2, (i) => i));
    const s = net.connect({ host: '127.0.0.1', port: a.server.port });
    await new Promise((r) => s.once('connect', r));
    const body = Buffer.from(JSON.stringify({ token: TOKEN, keys: ['x'], ipc: true }));
    const head = Buffer.alloc(4);
    head.writeUInt32LE(body.length, 0);
    s.write(Buffer.concat([head, body]));
    await until(() => a.ipc.exports > 0);
    s.destroy();
    await new Promise((r) => setTimeout(r, 30));
    expect(a.ipc.released).toEqual([]);
    await until(() => a.ipc.released.length > 0);
    expect(a.ipc.released).toEqual([{ exportId: 1, reuse: false }]);
  });
});
