/**
 * Registers the model-tuning task handlers (kind 'trial'). TensorFlow.js is imported inside the
 * handlers, on a worker's first tuning task, so a worker that never trains never loads it.
 */
import type { JsonValue } from '../../../common/arrays';
import { registerHandler } from '../../handlers';

const heavy = () => import('./search-tasks');

registerHandler('trial', 'search-trial', async (params, inputs, ctx) => (await heavy()).searchTrial(params, inputs as { kind: string; value?: unknown }[], ctx));
registerHandler('trial', 'search-leaderboard', async (params, inputs, ctx) => (await heavy()).searchLeaderboard(params, inputs as { kind: string; value?: unknown }[], ctx));
registerHandler('trial', 'search-best-model', async (params, inputs) => (await heavy()).searchBestModel(params, inputs as { kind: string; value?: unknown }[]));
registerHandler('trial', 'dataset-info', async (params, inputs) => (await import('./dataset-info')).datasetInfo(params, inputs as { kind: string; value?: unknown }[]));
// A node's own settings as its result (the model node when nothing consumes it).
registerHandler('trial', 'describe', async (params) => ({ value: { kind: 'json', value: params as JsonValue }, backend: 'js' }));
registerHandler('trial', 'predict', async (params, inputs, ctx) => (await import('./predict-task')).predictTask(params, inputs as { kind: string; value?: unknown }[], ctx));
registerHandler('trial', 'predict-table', async (params, inputs, ctx) => (await import('./predict-task')).predictTableTask(params, inputs as { kind: string; value?: unknown }[], ctx));
