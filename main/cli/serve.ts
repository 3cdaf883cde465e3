/** `gpuflow serve`: the API and UI on 127.0.0.1 (or --host), with a random token printed at start. */
import { randomBytes } from 'node:crypto';
import { serve } from '../api/http';
import { intOption, UsageError, type Parsed } from './args';
import { startService } from './cluster';

export async function serveCommand(_positionals: string[], opts: Parsed['values']): Promise<number> {
  const token = opts.token ?? randomBytes(18).toString('base64url');
  if (token.length < 16) throw new UsageError('--token must be at least 16 characters');
  const port = intOption(opts.port, 'port') ?? 7077;
  const svc = await startService(opts);
  const served = await serve(svc, { host: opts.host ?? '127.0.0.1', port, token });
  process.stdout.write(`gpuflow serve: ${served.url}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await served.close();
  await svc.close();
  return 0;
}
