/**
 * A request body read as JSON within serve's limits, and parsed with a request schema
 * (main/api/requests.ts): every refusal is an ApiError naming what is wrong (size, depth, field).
 */
import type { IncomingMessage } from 'node:http';
import type * as z from 'zod';
import { formatIssues } from '../../common/messages';
import { ApiError } from './api-error';
import { scanJsonBody } from './json-body';

const MAX_BODY = 16 * 1024 * 1024;
const DRAIN_LIMIT = 4 * MAX_BODY;
/** Workflow documents nest a few levels; 64 leaves room and keeps every later recursive walk safe. */
const MAX_DEPTH = 64;
/** Values in one body (commas and openers counted): a workflow is thousands; a million is refused before JSON.parse. */
const MAX_ELEMENTS = 1_000_000;

/**
 * The body as JSON. Over MAX_BODY, the rest is read and discarded (up to DRAIN_LIMIT) so the
 * client, still uploading, receives the 413 rather than a reset connection; past that it is cut.
 */
export function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const tooBig = () => new ApiError(413, `request body over ${MAX_BODY} bytes`);
    if (Number(req.headers['content-length'] ?? 0) > DRAIN_LIMIT) return reject(tooBig());
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
      else if (chunks.length) chunks.length = 0;
      if (size > DRAIN_LIMIT) reject(tooBig());
    });
    req.on('end', () => {
      if (size > MAX_BODY) return reject(tooBig());
      const raw = Buffer.concat(chunks);
      const problem = scanJsonBody(raw, MAX_DEPTH, MAX_ELEMENTS);
      if (problem?.kind === 'deep') return reject(new ApiError(400, `${problem.path}: nested deeper than ${MAX_DEPTH} levels`));
      if (problem?.kind === 'elements') return reject(new ApiError(413, `request body has more than ${MAX_ELEMENTS} JSON values`));
      try {
        resolve(raw.length ? JSON.parse(raw.toString('utf8')) : {});
      } catch (e) {
        reject(new ApiError(400, `request body is not JSON: ${e instanceof Error ? e.message : String(e)}`));
      }
    });
    req.on('error', reject);
  });
}

/** `x` checked against a request schema; a mismatch is a 400 naming the fields. */
export function parseRequest<T>(schema: z.ZodType<T>, x: unknown): T {
  const r = schema.safeParse(x);
  if (!r.success) throw new ApiError(400, `bad request: ${formatIssues(r.error)}`);
  return r.data;
}
