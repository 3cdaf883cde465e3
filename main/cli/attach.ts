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
 * How (main/cli/attach-connect.ts): the event stream is opened first (WS /api/events, the token in the Authorization header),
 * then POST /api/runs; the run's progress events draw the progress bar and its `run-result`
 * message is the result. Ctrl-C cancels the run on serve (POST /api/runs/:id/cancel).
 */
import { ApiError } from '../api/api-error';
import type { ServeFile } from '../api/serve-file';
import { traceStart } from '../../common/start-trace';
import { call, PoolUnavailable, preconnect, type Preconnection } from './attach-connect';
import { type AttachedResult, attachMessageSchema, clusterSchema, refusalSchema, startedSchema } from './attach-messages';
import type { ProgressPrinter } from './progress';

/** A refusal from serve as the error the command reports (400: exit 2, as a local refusal). */
function refusal(status: number, json: unknown, what: string): ApiError {
  const r = refusalSchema.safeParse(json);
  return new ApiError(status, r.success ? r.data.error : `${what}: HTTP ${status}`, r.success ? r.data.errors : undefined);
}

/**
 * Runs `doc` on serve and resolves with its result. Rejects with PoolUnavailable when nothing was
 * started there (the caller runs locally), with ApiError when serve refused the workflow.
 * `pre`: the connection main/cli.ts began (preconnect), else one made now; closed at the end.
 */
export async function attachRun(
  pool: ServeFile,
  doc: unknown,
  params: Record<string, number | string | boolean>,
  progress: ProgressPrinter,
  onRunId: (id: string) => void,
  pre: Preconnection = preconnect(pool),
): Promise<AttachedResult> {
  const { ws, cluster } = await pre.connected;
  try {
    const target = clusterSchema.safeParse(cluster.json);
    if (cluster.status !== 200 || !target.success) throw new PoolUnavailable(`serve at ${pool.origin} refused the attach (HTTP ${cluster.status}): its token changed?`);
    if (target.data.target !== null) throw new PoolUnavailable(`serve at ${pool.origin} sends its runs to ${target.data.target}`);
    // Results are collected from the moment the stream is open: a short run may end before POST answers.
    const results = new Map<string, AttachedResult>();
    let runId: string | null = null;
    let settle: ((r: AttachedResult) => void) | null = null;
    let fail: ((e: Error) => void) | null = null;
    const onMessage = (m: unknown) => {
      const t = typeof m === 'object' && m !== null && 'type' in m ? m.type : null;
      if (t !== 'progress' && t !== 'run-result') return;
      const parsed = attachMessageSchema.safeParse(m);
      if (!parsed.success) return void fail?.(new Error(`serve sent a ${t} message this gpuflow cannot read (a different version?)`));
      const msg = parsed.data;
      if (msg.type === 'progress') return progress.onProgress(msg);
      if (msg.result.runId === runId) settle?.(msg.result);
      else results.set(msg.result.runId, msg.result);
    };
    ws.on('message', (raw: Buffer) => {
      let batch: unknown;
      try {
        batch = JSON.parse(raw.toString('utf8'));
      } catch {
        return;
      }
      // serve sends a batch (a JSON array, in order) per tick (main/api/outbox.ts); a lone message is a batch of one.
      for (const m of Array.isArray(batch) ? batch : [batch]) onMessage(m);
    });
    const started = await call(pool, 'POST', '/api/runs', { doc, params }).catch((e: unknown) => {
      throw new PoolUnavailable(`cannot reach serve at ${pool.origin}: ${e instanceof Error ? e.message : String(e)}`);
    });
    if (started.status !== 200) throw refusal(started.status, started.json, 'serve refused the run');
    const s = startedSchema.safeParse(started.json);
    if (!s.success) throw new Error(`serve at ${pool.origin} answered the run with something this gpuflow cannot read`);
    runId = s.data.runId;
    traceStart('attach-run-started');
    onRunId(runId);
    const id = runId;
    const stop = () => void call(pool, 'POST', `/api/runs/${encodeURIComponent(id)}/cancel`, { reason: 'interrupted (SIGINT)' }).catch(() => undefined);
    process.once('SIGINT', stop);
    try {
      return await new Promise<AttachedResult>((resolve, reject) => {
        settle = resolve;
        fail = reject;
        const early = results.get(id);
        if (early) resolve(early);
        ws.once('close', () => reject(new Error(`lost the connection to serve at ${pool.origin} during run ${s.data.storeId ?? id} (serve goes on recording it: gpuflow history)`)));
      });
    } finally {
      process.off('SIGINT', stop);
    }
  } finally {
    ws.terminate();
  }
}

/** Whether serve would read the workflow's file paths as this process does (relative paths, allowed folders). */
export function samePaths(pool: ServeFile, namesFiles: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  return !namesFiles || (pool.cwd === process.cwd() && pool.allowedDirs === (env.GPUFLOW_ALLOWED_DIRS ?? null));
}

export { PoolUnavailable };
