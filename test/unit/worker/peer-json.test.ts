/**
 * Issue 26: a tuning trial's output (its packed weights and optimizer state, megabytes of base64
 * in a JSON value) must reach another worker's task through the peer port, whose header is
 * bounded (MAX_HEADER, 1 MiB). The JSON value travels in the message body; long strings go as
 * buffers of their own, base64 as its raw bytes. The oracle: the value as sent (deep equality,
 * the weight bytes compared bit for bit) and a trial resumed from the fetched weights training on
 * exactly as one kept in memory. Both fail on the old framing (the value inside the header).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import type { ChunkValue, JsonValue } from '../../../common/arrays';
import { decodeValue, encodeValue } from '../../../common/codec';
import { modelSpecFromParams } from '../../../common/tuning/trial';
import { makeClassification } from '../../../worker/kernels/tfjs/datasets';
import { packModel, unpackModel, type PackedModel } from '../../../worker/kernels/tfjs/pack';
import { trainValidationSplit } from '../../../worker/kernels/tfjs/split';
import { trainTrial } from '../../../worker/kernels/tfjs/train';
import { TrialModelStore } from '../../../worker/kernels/tfjs/trial-store';
import { fetchFromPeer, startPeerServer, type PeerServer } from '../../../worker/peer';

const TOKEN = 'peer-json-token-0123456789';
const held = new Map<string, ChunkValue>();
let server: PeerServer;

beforeAll(async () => {
  await tf.setBackend('cpu');
  server = await startPeerServer(TOKEN, (k) => held.get(k));
});
afterAll(() => server.close());

async function roundTrip(value: JsonValue): Promise<JsonValue> {
  held.set('k', { kind: 'json', value });
  const got = (await fetchFromPeer('127.0.0.1', server.port, TOKEN, ['k'])).get('k');
  if (got?.kind !== 'json') throw new Error(`fetched ${got?.kind ?? 'nothing'}, not json`);
  return got.value;
}

describe('JSON values over the peer port', () => {
  it('carries megabytes of strings in the body, bit for bit, with a small header', async () => {
    // Every byte value, NaN and -0 patterns among them: base64 of 3 MB of raw float32 bytes.
    const raw = new Uint8Array(3 << 20);
    for (let i = 0; i < raw.length; i++) raw[i] = (i * 2654435761) >>> 24;
    const weights = Buffer.from(raw).toString('base64');
    const text = 'é≠𝄞 not base64 '.repeat(600); // over BLOB_MIN_CHARS, UTF-16 surrogates included
    const notCanonical = `${'A'.repeat(5000)}=`; // base64-looking but not canonical: goes as text
    const value: JsonValue = { kind: 'trial', curve: [0.5, 0, 1e-300], model: { weights, artifacts: { weightSpecs: [{ name: 'w', shape: [3] }] } }, notes: [text, 'short', notCanonical] };

    const header = JSON.stringify(encodeValue({ kind: 'json', value }).header);
    expect(header.length).toBeLessThan(1024);
    const got = await roundTrip(value);
    expect(got).toEqual(value);
    const w = (got as { model: { weights: string } }).model.weights;
    expect(Buffer.from(w, 'base64').equals(Buffer.from(raw))).toBe(true);
    // A whole value that is one long string, and small values, still round-trip.
    expect(await roundTrip(text)).toBe(text);
    expect(await roundTrip({ a: [1, null, true, 'x'] })).toEqual({ a: [1, null, true, 'x'] });
  });

  it('a trial packed on one worker resumes on another exactly as kept in memory (weights and optimizer state)', async () => {
    // 784 features and 256 units: about 3 MB of weights and Adam state, 4 MB of base64.
    const data = trainValidationSplit(makeClassification({ nSamples: 120, nFeatures: 784, nInformative: 16, nClasses: 4, classSep: 2, seed: 3 }), { validationFraction: 0.25, seed: 3 });
    const trial = (epochs: number) => ({ trialId: 'r', model: modelSpecFromParams({ kind: 'mlp' }, { learningRate: 0.01, units: 256, dropout: 0.1, optimizer: 'adam' }), seed: 5, epochs, metric: 'accuracy' as const });
    const straight = await trainTrial(trial(3), data);

    const store = new TrialModelStore();
    await trainTrial(trial(1), data, { store });
    const packed = await packModel(store.get('r')!);
    store.clear();
    expect(packed.weights.length).toBeGreaterThan(1 << 20);
    const fetched = await roundTrip({ kind: 'trial', model: packed as unknown as JsonValue });
    if (fetched === null || typeof fetched !== 'object' || Array.isArray(fetched)) throw new Error('fetched no object');
    const model = fetched.model as unknown as PackedModel;
    expect(model.weights === packed.weights).toBe(true);
    const next = new TrialModelStore();
    next.set('r', await unpackModel(model));
    const resumed = await trainTrial(trial(3), data, { store: next });
    next.clear();
    expect(resumed.history).toEqual(straight.history.slice(1));
    expect(resumed.score).toBe(straight.score);
  }, 120_000);

  it('refuses a blob path that leads nowhere in the value, naming the path', () => {
    const body = [Buffer.from('{"model":{"weights":""}}'), Buffer.from('abcd', 'base64')];
    expect(() => decodeValue({ kind: 'json', blobs: [{ path: ['model', 'weight'], base64: true }] }, body)).toThrow(/blob path \["model","weight"\] does not lead/);
    expect(() => decodeValue({ kind: 'json', blobs: [{ path: ['model', 'weights', 0], base64: true }] }, body)).toThrow(/does not lead/);
  });
});
