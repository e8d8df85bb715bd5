/** A page: its title (focused on arrival, so screen readers announce the new page) and content. */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

interface Props {
  title: string;
  actions?: ComponentChildren;
  children: ComponentChildren;
}

export function Page({ title, actions, children }: Props) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Vigil console`;
    heading.current?.focus();
  }, [title]);
  return (
    <>
      <div class="page-head">
        <h1 ref={heading} tabIndex={-1}>
          {title}
        </h1>
        {actions ? <div class="page-actions">{actions}</div> : null}
      </div>
      {children}
    </>
  );
}
