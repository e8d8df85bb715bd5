/** An error from the agent, in words, announced to screen readers. */
import { errorText } from '../api-client.js';

export function ErrorMessage({ error, prefix }: { error: unknown; prefix?: string }) {
  if (error === null || error === undefined) return null;
  return (
    <p role="alert" class="error">
      {prefix ? `${prefix}: ` : ''}
      {errorText(error)}
    </p>
  );
}
