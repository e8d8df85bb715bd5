/**
 * One change sent to the agent from a form or a button: `busy` while it runs (so a second click
 * sends nothing twice) and the agent's refusal kept for the view to show under its field.
 */
import { useState } from 'preact/hooks';

export interface Action {
  busy: boolean;
  error: unknown;
  /** Runs `work`; true when it succeeded. A failure is kept in `error`, never thrown. */
  run: (work: () => Promise<unknown>) => Promise<boolean>;
  clearError: () => void;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (work: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      await work();
      return true;
    } catch (caught) {
      setError(caught);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, clearError: () => setError(null) };
}
