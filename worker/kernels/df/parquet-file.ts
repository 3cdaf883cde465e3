/**
 * Parquet files read by ranges, never whole (issue 19: reading a file to find its footer blocked
 * serve's loop for seconds, and any file over 2 GiB — Node's readFile limit — was refused).
 * Compile reads only the footer, synchronously (the last 8 bytes give its length, then one read
 * of the footer itself: kilobytes, so it cannot stall the loop); a worker reads a row group through
 * hyparquet's AsyncBuffer over a file handle, so only that row group's column chunks are read.
 */
import { closeSync, readSync } from 'node:fs';
import { FileKindError, kindOf, NO_BLOCK_READ_FLAGS, openRegularFile } from '../../../common/safe-files';
import { open } from 'node:fs/promises';
import { parquetMetadata, type AsyncBuffer, type FileMetaData } from 'hyparquet';

/** Largest footer read (a footer of a million row groups is tens of MB; 2 GB claims are refused). */
export const MAX_PARQUET_FOOTER_BYTES = 64 * 1024 * 1024;

function readAt(fd: number, pos: number, len: number): ArrayBuffer {
  const buf = Buffer.alloc(len);
  let got = 0;
  while (got < len) {
    const n = readSync(fd, buf, got, len - got, pos + got);
    if (n === 0) throw new Error(`unexpected end of file at byte ${pos + got}`);
    got += n;
  }
  return buf.buffer.slice(buf.byteOffset, buf.byteOffset + len) as ArrayBuffer;
}

/** The footer (FileMetaData) of the Parquet file at `path`, from two ranged reads. */
export function parquetFooter(path: string): FileMetaData {
  const { fd, size } = openRegularFile(path);
  try {
    if (size < 12) throw new Error(`${size} bytes is too short for a Parquet file`);
    const tail = Buffer.from(readAt(fd, size - 8, 8));
    if (tail.toString('latin1', 4) !== 'PAR1') throw new Error('no PAR1 magic at the end');
    const len = tail.readUInt32LE(0);
    if (len > MAX_PARQUET_FOOTER_BYTES) throw new Error(`footer length ${len} is over ${MAX_PARQUET_FOOTER_BYTES} bytes (64 MiB), the limit on a Parquet footer`);
    if (len + 8 > size - 4) throw new Error(`footer length ${len} is larger than the file`);
    // parquetMetadata reads the footer from the end of the buffer it is given.
    return parquetMetadata(readAt(fd, size - 8 - len, len + 8));
  } finally {
    closeSync(fd);
  }
}

/** An AsyncBuffer over an open file handle; `close` when done. */
export async function fileAsyncBuffer(path: string): Promise<{ file: AsyncBuffer; close(): Promise<void> }> {
  const fh = await open(path, NO_BLOCK_READ_FLAGS);
  const st = await fh.stat();
  if (!st.isFile()) {
    await fh.close();
    throw new FileKindError(`${path} is ${kindOf(st)}, not a regular file`);
  }
  const size = st.size;
  const file: AsyncBuffer = {
    byteLength: size,
    async slice(start: number, end?: number): Promise<ArrayBuffer> {
      const stop = Math.min(end ?? size, size);
      const buf = Buffer.alloc(Math.max(0, stop - start));
      let got = 0;
      while (got < buf.length) {
        const { bytesRead } = await fh.read(buf, got, buf.length - got, start + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      return buf.buffer.slice(buf.byteOffset, buf.byteOffset + got) as ArrayBuffer;
    },
  };
  return { file, close: () => fh.close() };
}
