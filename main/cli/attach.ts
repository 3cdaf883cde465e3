/**
 * The warm pool: `gpuflow run` hands its run to a `gpuflow serve` already running on this
 * workstation (its workers started, CUDA contexts made) instead of starting workers of its own,
 * and prints what a local run prints, with the same exit codes.
 *
 * When (main/cli/warm-pool.ts, main/cli/run.ts): serve announced itself beside the database this
 * run would record into (main/api/serve-file.ts), its pid is alive, its worker pool is the one
 * this run's options ask for (main/cli/workers.ts workerPoolKey), its runs go to this workstation
 * (not a Dask cluster), and — for a workflow naming files — it resolves paths as this process
 * would (same working directory and allowed folders). `--no-attach`, `--dask` and `--no-store` run locally. If serve
 * cannot be reached before the run starts, the run starts locally instead (the pool is only a
 * shortcut); once it has started there, a lost connection fails the command (exit 1) naming the
 * run, which serve keeps recording.
 *
 * How (main/api/attached-run.ts): one POST /api/runs/attached with the document and params (the
 * token in the Authorization header), whose answer streams the run: its id once started, its
 * progress (the progress bar), its `run-result` message (the result). Ctrl-C cancels the run on
 * serve (POST /api/runs/:id/cancel). A serve without that route (another version: 404) or whose
 * runs go to a Dask cluster (409) leaves the run to this process.
 */
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../api/api-error';
import type { ServeFile } from '../api/serve-file';
import { traceStart } from '../../common/start-trace';
import { call, CONNECT_MS, PoolUnavailable, readJson, send } from './attach-connect';
import type { AttachedResult } from './attach-messages';
import type { ProgressPrinter } from './progress';

type Schemas = typeof import('./attach-messages');

/** A refusal from serve as the error the command reports (400: exit 2, as a local refusal). */
function refusal({ refusalSchema }: Schemas, status: number, json: unknown, what: string): ApiError {
  const r = refusalSchema.safeParse(json);
  return new ApiError(status, r.success ? r.data.error : `${what}: HTTP ${status}`, r.success ? r.data.errors : undefined);
}

/**
 * Runs `doc` on serve and resolves with its result. Rejects with PoolUnavailable when nothing was
 * started there (the caller runs locally), with ApiError when serve refused the workflow.
 */
export function attachRun(pool: ServeFile, doc: unknown, params: Record<string, number | string | boolean>, progress: ProgressPrinter, onRunId: (id: string) => void): Promise<AttachedResult> {
  return new Promise<AttachedResult>((resolve, reject) => {
    // The message schemas load while serve validates, compiles and starts the run: the request
    // goes out first. Its answer waits, unread, until they are there.
    let schemas: Promise<Schemas> | null = null;
    let runId: string | null = null;
    let name = '';
    let settled = false;
    const stop = () => {
      if (runId !== null) void call(pool, 'POST', `/api/runs/${encodeURIComponent(runId)}/cancel`, { reason: 'interrupted (SIGINT)' }).catch(() => undefined);
    };
    const finish = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(connecting);
      process.off('SIGINT', stop);
      f();
    };
    const lost = () => finish(() => reject(new Error(`lost the connection to serve at ${pool.origin} during run ${name} (serve goes on recording it: gpuflow history)`)));
    const unreachable = (why: string) => finish(() => reject(new PoolUnavailable(`cannot reach serve at ${pool.origin}: ${why}`)));
    /** One line of the answer: the start, a progress event or the result. */
    const onLine = ({ attachMessageSchema, startedSchema }: Schemas, text: string) => {
      let m: unknown;
      try {
        m = JSON.parse(text);
      } catch {
        return;
      }
      const t = typeof m === 'object' && m !== null && 'type' in m ? m.type : null;
      if (t === 'started') {
        const s = startedSchema.safeParse(m);
        if (!s.success) return finish(() => reject(new Error(`serve at ${pool.origin} answered the run with something this gpuflow cannot read`)));
        runId = s.data.runId;
        name = String(s.data.storeId ?? runId);
        traceStart('attach-run-started');
        onRunId(runId);
        process.once('SIGINT', stop);
        return;
      }
      if (t !== 'progress' && t !== 'run-result') return;
      const parsed = attachMessageSchema.safeParse(m);
      if (!parsed.success) return finish(() => reject(new Error(`serve sent a ${t} message this gpuflow cannot read (a different version?)`)));
      const msg = parsed.data;
      if (msg.type === 'progress') return progress.onProgress(msg);
      finish(() => resolve(msg.result));
    };
    const onStream = (m: Schemas, res: IncomingMessage) => {
      // Lines split on the newline byte: no string decoder to load (UTF-8 never has 0x0a inside a character).
      let pending: Buffer = Buffer.alloc(0);
      res.on('data', (d: Buffer) => {
        pending = pending.length ? Buffer.concat([pending, d]) : d;
        for (let i = pending.indexOf(10); i >= 0; i = pending.indexOf(10)) {
          onLine(m, pending.subarray(0, i).toString('utf8'));
          pending = pending.subarray(i + 1);
        }
      });
      res.on('error', lost);
      res.on('close', () => (runId === null ? unreachable('the answer ended before the run started') : lost()));
    };
    const req = send(pool, 'POST', '/api/runs/attached', { doc, params }, (res) => {
      traceStart('attach-connected');
      const status = res.statusCode ?? 0;
      if (status === 200) return void schemas?.then((m) => onStream(m, res), lost);
      void Promise.all([schemas, readJson(res)]).then(([m, json]) => {
        if (!m) return lost();
        // 404: a serve without this route (another version); 409: its runs go to a Dask cluster.
        if (status === 404 || status === 409) finish(() => reject(new PoolUnavailable(`serve at ${pool.origin} did not take the run (HTTP ${status}: ${refusal(m, status, json, 'refused').message})`)));
        else if (status === 401) finish(() => reject(new PoolUnavailable(`serve at ${pool.origin} refused the attach (HTTP 401): its token changed?`)));
        else finish(() => reject(refusal(m, status, json, 'serve refused the run')));
      }, lost);
    });
    traceStart('attach-requested');
    schemas = import('./attach-messages');
    const connecting = setTimeout(() => {
      req.destroy();
      unreachable(`no connection in ${CONNECT_MS} ms`);
    }, CONNECT_MS);
    req.once('socket', (socket) => socket.once('connect', () => clearTimeout(connecting)));
    req.on('error', (e) => (runId === null ? unreachable(e.message) : lost()));
  });
}

/** Whether serve would read the workflow's file paths as this process does (relative paths, allowed folders). */
export function samePaths(pool: ServeFile, namesFiles: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  return !namesFiles || (pool.cwd === process.cwd() && pool.allowedDirs === (env.GPUFLOW_ALLOWED_DIRS ?? null));
}

export { PoolUnavailable };
