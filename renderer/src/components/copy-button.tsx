/**
 * A button that copies a value (URLs, the fingerprint, new credentials). Uses the Clipboard API
 * (the console runs on 127.0.0.1, a secure context); if that is refused, it selects the text of
 * the element named by `selectId` and copies it the old way. The result is announced.
 */
import { useState } from 'preact/hooks';

interface Props {
  value: string;
  /** What is copied, for the button's accessible name: "Copy client ID". */
  label: string;
  /** Id of the element showing the value, selected and copied by the fallback. */
  selectId?: string;
}

async function copy(value: string, selectId?: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(value);
    return true;
  } catch {
    const element = selectId ? document.getElementById(selectId) : null;
    if (!element) return false;
    if (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement) element.select();
    else {
      const range = document.createRange();
      range.selectNodeContents(element);
      const selection = window.getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
    }
    return document.execCommand('copy');
  }
}

export function CopyButton({ value, label, selectId }: Props) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const onClick = async (): Promise<void> => {
    const ok = await copy(value, selectId);
    setState(ok ? 'copied' : 'failed');
    window.setTimeout(() => setState('idle'), 2500);
  };
  return (
    <span class="copy">
      <button type="button" class="secondary small" onClick={onClick} aria-label={label}>
        {state === 'copied' ? 'Copied' : 'Copy'}
      </button>
      <span role="status" class="visually-hidden">
        {state === 'copied'
          ? `${label}: copied`
          : state === 'failed'
            ? `${label}: could not copy; select the text`
            : ''}
      </span>
    </span>
  );
}
