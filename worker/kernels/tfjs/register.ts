/**
 * Registers the model-tuning task handlers (kind 'trial'), each with its params parsed by the
 * op's schema (common/tuning/op-params.ts). TensorFlow.js is imported inside the handlers, on a
 * worker's first tuning task, so a worker that never trains never loads it.
 */
import { jsonValueSchema } from '../../../common/schemas';
import { registerTrialOp } from '../../handlers';

const heavy = () => import('./search-tasks');

registerTrialOp('search-trial', async (params, inputs, ctx) => (await heavy()).searchTrial(params, inputs, ctx));
registerTrialOp('search-leaderboard', async (params, inputs, ctx) => (await heavy()).searchLeaderboard(params, inputs, ctx));
registerTrialOp('search-best-model', async (params, inputs) => (await heavy()).searchBestModel(params, inputs));
registerTrialOp('dataset-info', async (params, inputs) => (await import('./dataset-info')).datasetInfo(params, inputs));
// A model node's settings as its result (when nothing consumes the model).
registerTrialOp('describe', async (params) => ({ value: { kind: 'json', value: jsonValueSchema.parse(params) }, backend: 'js' }));
registerTrialOp('predict', async (params, inputs, ctx) => (await import('./predict-task')).predictTask(params, inputs, ctx));
registerTrialOp('predict-table', async (params, inputs, ctx) => (await import('./predict-task')).predictTableTask(params, inputs, ctx));
