/**
 * The dialogs of a list page: which one is open, and the notice that says what the last one
 * changed once the list is read again.
 */
import { useState } from 'preact/hooks';

export interface PageDialogs<M> {
  modal: M | null;
  open: (modal: M) => void;
  close: () => void;
  notice: string;
  setNotice: (text: string) => void;
  /** Closes the dialog, reads the list again, then announces `message`. */
  done: (message: string) => Promise<void>;
}

export function usePageDialogs<M>(reload: () => Promise<void>): PageDialogs<M> {
  const [modal, setModal] = useState<M | null>(null);
  const [notice, setNotice] = useState('');
  return {
    modal,
    open: setModal,
    close: () => setModal(null),
    notice,
    setNotice,
    done: async (message) => {
      setModal(null);
      await reload();
      setNotice(message);
    },
  };
}
