/**
 * One interface over the two ways a worker process starts: `child_process.fork` (serve, CLI, tests)
 * and Electron's `utilityProcess` (the app). The worker code is the same for both.
 */
import type { Batch } from '../../common/batch';
import type { ToWorker } from '../../common/messages';

export type ExitInfo = {
  code: number | null;
  signal: string | null;
  /** Why, where the launcher knows more than the code (Electron: child-process-gone's reason, e.g. 'oom'). */
  detail?: string;
};

export interface LaunchedProcess {
  readonly pid: number | undefined;
  /** One message, or a batch of them (common/batch.ts). */
  send(msg: ToWorker | Batch): void;
  onMessage(fn: (raw: unknown) => void): void;
  onExit(fn: (info: ExitInfo) => void): void;
  kill(signal: NodeJS.Signals): void;
  /**
   * Stops this process from holding main's event loop open, so main may exit while it is still
   * ending (the CLI after its run: a GPU worker's exit tears its CUDA context down, 0.1 s or more).
   * Absent where the launcher cannot (Electron's utilityProcess): the pool then waits as before.
   */
  detach?(): void;
}

export interface LaunchOptions {
  /** Extra environment (CUDA_VISIBLE_DEVICES for GPU workers). */
  env: Record<string, string>;
  /** Name shown in process listings and logs. */
  name: string;
}

export interface Launcher {
  readonly kind: 'fork' | 'utility';
  launch(opts: LaunchOptions): LaunchedProcess;
}
