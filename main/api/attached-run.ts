/**
 * POST /api/runs/attached: a `gpuflow run` handing its run to this serve (main/cli/attach.ts) in
 * one request. The body is POST /api/runs's ({ doc, params }); the answer, once the run has
 * started, is newline-delimited JSON: `{"type":"started","runId","storeId"}`, then that run's
 * `progress` events, then its `run-result` message (as the event stream sends them), and the
 * answer ends. A refusal is an ordinary JSON error before anything is streamed (400 for the
 * document, 409 when serve's runs go to a Dask cluster: the command then runs here).
 *
 * Why not the WebSocket event stream and POST /api/runs: the command had to load a WebSocket
 * client (`ws`, 10-13 ms of its start on the 2-core build machine), open the stream and ask
 * serve's cluster before its POST; one request carries all it reads. The client going away does
 * not cancel the run (serve goes on recording it, as with the stream); Ctrl-C in the command
 * cancels it with POST /api/runs/:id/cancel.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from './api-error';
import { parseRequest, readBody } from './read-body';
import { startRunRequest } from './requests';
import type { GpuflowService } from './service';
import { traceStart } from '../../common/start-trace';

export const ATTACHED_RUN_ROUTE = '/api/runs/attached';

export async function answerAttachedRun(svc: GpuflowService, req: IncomingMessage, res: ServerResponse, signal: AbortSignal): Promise<void> {
  const b = parseRequest(startRunRequest, await readBody(req));
  traceStart('api-run-read');
  const target = svc.cluster().target;
  if (target !== null) throw new ApiError(409, `serve sends its runs to ${target}`);
  // Listening before the run starts: a short run may end before runAsync's answer is written.
  let runId: string | null = null;
  const early: Array<[{ type: string }, string]> = [];
  let ended = false;
  const line = (m: unknown) => {
    if (!res.destroyed) res.write(`${JSON.stringify(m)}\n`);
  };
  const send = (m: { type: string }, id: string) => {
    if (runId === null) return void early.push([m, id]);
    if (id !== runId || ended) return;
    line(m);
    if (m.type === 'run-result') {
      ended = true;
      stop();
      res.end();
    }
  };
  const unsubEvents = svc.subscribe((e) => {
    if (e.type === 'progress') send(e, e.runId);
  });
  const unsubResults = svc.onResult((m) => {
    if (m.type === 'run-result') send(m, m.result.runId);
  });
  const stop = () => {
    unsubEvents();
    unsubResults();
  };
  res.once('close', stop);
  let started: Awaited<ReturnType<GpuflowService['runAsync']>>;
  try {
    started = await svc.runAsync(b.doc, { params: b.params, signal });
  } catch (e) {
    stop();
    throw e;
  }
  started.done.catch(() => undefined);
  res.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' });
  // The run's id goes out at once (the command prints it on Ctrl-C and cancels by it).
  res.flushHeaders();
  line({ type: 'started', runId: started.runId, storeId: started.storeId });
  runId = started.runId;
  for (const [m, id] of early.splice(0)) send(m, id);
}
