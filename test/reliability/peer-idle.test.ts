/**
 * A worker's peer port (worker/peer.ts) closes connections that send nothing (issue 19: idle
 * connections were held forever). The idle limit is shortened for the test; the server must be
 * the one that closes (the client never ends its side), and a real fetch still works afterwards.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import type { ChunkValue } from '../../common/arrays';
import { fetchFromPeer, startPeerServer } from '../../worker/peer';
import { figures } from './helpers';

describe('peer port idle connections', () => {
  it('are closed by the server; a token-bearing fetch still gets its chunk', async () => {
    const value: ChunkValue = { kind: 'json', value: [1, 2, 3] };
    const server = await startPeerServer('peer-token-0123456789', (k) => (k === 'a' ? value : undefined), { idleMs: 300 });
    try {
      const idle = net.connect({ host: '127.0.0.1', port: server.port });
      const closedBy = await new Promise<string>((resolve) => {
        idle.on('error', () => undefined);
        idle.on('end', () => resolve('server'));
        idle.on('close', () => resolve('server'));
      });
      const got = await fetchFromPeer('127.0.0.1', server.port, 'peer-token-0123456789', ['a']);
      const a = got.get('a');
      figures('peer-idle', { closedBy, fetched: a });
      expect(closedBy).toBe('server');
      expect(a).toEqual({ kind: 'json', value: [1, 2, 3] });
    } finally {
      await server.close();
    }
  }, 30_000);
});
