/** The run queue in the toolbar: the running entry and those waiting, each queued one removable. */
import { useData, useSession } from './hooks';

export function RunQueue() {
  const session = useSession();
  const queue = useData((s) => s.queue);
  const waiting = queue.filter((q) => q.state === 'queued');
  if (queue.length === 0) return null;
  return (
    <span className="gf-queue" data-testid="queue" data-waiting={waiting.length}>
      <span className="gf-queue-title">queue</span>
      {queue.map((q) => (
        <span key={q.id} className={`gf-queue-entry ${q.state}`} data-testid="queue-entry" data-state={q.state} title={`${q.label}: ${q.state === 'running' ? 'running; Cancel stops it and starts the next' : 'waiting for the run before it'}`}>
          {q.label}
          {q.state === 'queued' && (
            <button className="gf-queue-remove" aria-label={`remove ${q.label} from the queue`} data-testid="queue-remove" onClick={() => void session.removeQueued(q.id)}>
              ×
            </button>
          )}
        </span>
      ))}
    </span>
  );
}
