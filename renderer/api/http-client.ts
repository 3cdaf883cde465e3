/**
 * GpuflowApi over `gpuflow serve`'s HTTP + WebSocket mapping (common/api.ts). The token comes from
 * the page URL's ?token= and goes on every request as a Bearer header and on the socket URL. The
 * event socket reconnects with backoff and resumes after the last sequence number it saw, so a
 * dropped connection loses no events.
 */
import type { GpuflowApi, Params, StreamMessage } from '../../common/api';
import type { WorkflowDoc } from '../../common/workflow';
import { ApiError } from './api-error';

export interface HttpClientOptions {
  /** Origin + base, e.g. "http://127.0.0.1:5173"; defaults to the page's origin. */
  base?: string;
  token?: string | null;
  fetchImpl?: typeof fetch;
  WebSocketImpl?: typeof WebSocket;
}

export function tokenFromUrl(href: string): string | null {
  return new URL(href).searchParams.get('token');
}

export function createHttpClient(opts: HttpClientOptions = {}): GpuflowApi {
  const base = opts.base ?? globalThis.location.origin;
  const token = opts.token === undefined ? tokenFromUrl(globalThis.location.href) : opts.token;
  const doFetch = opts.fetchImpl ?? globalThis.fetch.bind(globalThis);
  const WS = opts.WebSocketImpl ?? globalThis.WebSocket;

  async function call<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {};
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await doFetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let data: unknown = undefined;
    if (text) {
      try {
        data = JSON.parse(text);
      } catch {
        data = text;
      }
    }
    if (!res.ok) {
      const d = data as { errors?: unknown; error?: unknown } | string | undefined;
      const errors =
        typeof d === 'object' && d && Array.isArray(d.errors)
          ? d.errors.map(String)
          : typeof d === 'object' && d && typeof d.error === 'string'
            ? [d.error]
            : [`${method} ${path}: HTTP ${res.status}${typeof d === 'string' && d ? ` ${d}` : ''}`];
      throw new ApiError(res.status, errors);
    }
    return data as T;
  }

  const q = (o: Record<string, string | number | undefined>) => {
    const s = new URLSearchParams();
    for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== '') s.set(k, String(v));
    const t = s.toString();
    return t ? `?${t}` : '';
  };

  return {
    catalog: () => call('GET', '/api/catalog'),
    devices: () => call('GET', '/api/devices'),
    workers: () => call('GET', '/api/workers'),
    restartWorker: async (id) => {
      await call('POST', `/api/workers/${encodeURIComponent(id)}/restart`);
    },
    examples: () => call('GET', '/api/examples'),
    validate: (doc: WorkflowDoc, params?: Params) => call('POST', '/api/validate', { doc, params: params ?? {} }),
    startRun: (doc, params, o) => call('POST', '/api/runs', { doc, params: params ?? {}, node: o?.node, reuse: o?.reuse }),
    enqueueRun: (doc, o) => call('POST', '/api/queue', { doc, params: o?.params ?? {}, node: o?.node }),
    queue: () => call('GET', '/api/queue'),
    removeQueued: async (id) => {
      const r = await call<{ removed: boolean }>('DELETE', `/api/queue/${encodeURIComponent(id)}`);
      return r.removed;
    },
    cancelRun: async (runId) => {
      const r = await call<boolean | { cancelled?: boolean; ok?: boolean }>('POST', `/api/runs/${encodeURIComponent(runId)}/cancel`);
      return typeof r === 'boolean' ? r : Boolean(r?.cancelled ?? r?.ok);
    },
    history: (f) => call('GET', `/api/runs${q({ status: f?.status, workflow: f?.workflow, limit: f?.limit })}`),
    run: (id) => call('GET', `/api/runs/${id}`),
    runEvents: (id) => call('GET', `/api/runs/${id}/events`),
    replay: (id) => call('POST', `/api/runs/${id}/replay`),
    compare: (a, b) => call('GET', `/api/compare${q({ a, b })}`),
    startBench: (doc, o) => call('POST', '/api/bench', { doc, params: o?.params ?? {}, repeat: o?.repeat, warmup: o?.warmup }),
    benchmarks: (h) => call('GET', `/api/benchmarks${q({ workflow: h })}`),
    benchProgress: () => call('GET', '/api/bench/progress'),
    benchRunEvents: (benchId) => call('GET', `/api/bench/events${q({ bench: benchId })}`),
    cancelBench: async (benchId) => (await call<{ cancelled: boolean }>('POST', '/api/bench/cancel', { benchId })).cancelled,
    cluster: () => call('GET', '/api/cluster'),
    selectCluster: (address) => call('PUT', '/api/cluster', { address }),
    testCluster: (address) => call('POST', '/api/cluster/test', { address }),
    subscribe(onMessage: (m: StreamMessage) => void, since?: number) {
      let lastSeq = since;
      let closed = false;
      let socket: WebSocket | null = null;
      let delay = 250;
      let timer: ReturnType<typeof setTimeout> | null = null;
      const open = () => {
        const url = new URL('/api/events', base.replace(/^http/, 'ws'));
        if (lastSeq !== undefined) url.searchParams.set('since', String(lastSeq));
        if (token) url.searchParams.set('token', token);
        const ws = new WS(url.toString());
        socket = ws;
        ws.onopen = () => (delay = 250);
        ws.onmessage = (ev: MessageEvent) => {
          let parsed: StreamMessage | StreamMessage[];
          try {
            parsed = JSON.parse(String(ev.data)) as StreamMessage | StreamMessage[];
          } catch {
            return; // not ours to act on; the server only sends JSON
          }
          // serve sends a batch (an array) per tick; a single message is taken as a batch of one.
          for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
            if ('seq' in m && typeof m.seq === 'number') {
              if (lastSeq !== undefined && m.seq <= lastSeq) continue; // already seen before a reconnect
              lastSeq = m.seq;
            }
            onMessage(m);
          }
        };
        ws.onclose = () => {
          if (closed) return;
          timer = setTimeout(open, delay);
          delay = Math.min(delay * 2, 5000);
        };
      };
      open();
      return () => {
        closed = true;
        if (timer) clearTimeout(timer);
        socket?.close();
      };
    },
  };
}
