/**
 * Compressed static files for `serve`: the renderer's scripts, styles and page are sent brotli- or
 * gzip-compressed as the browser's Accept-Encoding allows (brotli first, then gzip; q=0 refuses
 * one), compressed once per file version (path, size and mtime) with node:zlib off the event loop
 * and kept in memory, so the 1.6 MB bundle costs its compression once, not on every load. Images
 * and fonts are already compressed and go as they are.
 */
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

export type Encoding = 'br' | 'gzip';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Content types worth compressing (text); others are sent as stored. */
export function compressible(contentType: string): boolean {
  return /^(text\/|application\/(json|javascript)|image\/svg\+xml)/.test(contentType);
}

/**
 * The encoding to answer with for an Accept-Encoding header, or null for none: brotli before gzip
 * at equal quality, any coding with q=0 refused, `*` standing for the codings not named.
 */
export function pickEncoding(accept: string | undefined): Encoding | null {
  if (!accept) return null;
  const q = new Map<string, number>();
  for (const part of accept.split(',')) {
    const [rawName, ...params] = part.toLowerCase().split(';');
    const name = rawName.trim();
    if (!name) continue;
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qp === undefined ? 1 : Number(qp.slice(2));
    q.set(name, Number.isFinite(value) ? value : 0);
  }
  const of = (c: Encoding) => q.get(c) ?? (c === 'gzip' ? q.get('x-gzip') : undefined) ?? q.get('*') ?? 0;
  const br = of('br');
  const gz = of('gzip');
  if (br <= 0 && gz <= 0) return null;
  return br >= gz ? 'br' : 'gzip';
}

/** Compressed copies by file version and encoding, bounded in bytes (oldest dropped first). */
export class CompressedFiles {
  private readonly entries = new Map<string, Promise<Buffer>>();
  private readonly sizes = new Map<string, number>();
  private bytes = 0;

  constructor(private readonly maxBytes = 64 * 2 ** 20) {}

  /** The file's bytes in `enc`, compressed on first use of this version. */
  get(file: string, version: { size: number; mtimeMs: number }, enc: Encoding): Promise<Buffer> {
    const key = `${enc}\u0000${file}\u0000${version.size}\u0000${version.mtimeMs}`;
    let p = this.entries.get(key);
    if (p) return p;
    p = readFile(file).then((raw) =>
      enc === 'br' ? brotli(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length } }) : gzip(raw, { level: 9 }),
    );
    this.entries.set(key, p);
    p.then(
      (buf) => this.account(key, buf.length),
      () => this.entries.delete(key), // a failed read is tried again next time
    );
    return p;
  }

  private account(key: string, size: number) {
    if (!this.entries.has(key)) return;
    this.sizes.set(key, size);
    this.bytes += size;
    for (const [k, n] of this.sizes) {
      if (this.bytes <= this.maxBytes || k === key) break;
      this.entries.delete(k);
      this.sizes.delete(k);
      this.bytes -= n;
    }
  }
}
