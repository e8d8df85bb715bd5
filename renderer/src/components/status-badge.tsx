/** OK / Warning / Error as a word with a colour, never colour alone. */
import type { RuntimeStatusView } from '../../../shared/console-api.js';

export function StatusBadge({ status }: { status: RuntimeStatusView | null }) {
  if (!status) return <span class="badge">Unknown</span>;
  const kind = status.type === 'OK' ? 'ok' : status.type === 'Warning' ? 'warning' : 'error';
  return (
    <span class={`badge ${kind}`} title={status.details || undefined}>
      {status.type === 'OK' ? 'OK' : status.type}: {status.summary}
    </span>
  );
}
