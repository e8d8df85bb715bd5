/**
 * The console shell: a skip link, the navigation, and the page for the current path. Pages live
 * in views/, one per file. Whatever goes wrong, the shell stays on screen and says what happened
 * in words: not signed in, the agent not answering, or an error inside a page.
 */
import { useEffect, useErrorBoundary, useRef } from 'preact/hooks';
import { api, isSignedOut } from './api-client.js';
import { interceptLinks, usePath } from './router.js';
import { useResource } from './use-resource.js';
import { OverviewPage } from './views/overview.js';
import { ApplicationsPage } from './views/applications.js';
import { AuditUsersPage } from './views/audit-users.js';
import { DomainsPage } from './views/domains.js';
import { LogFilesPage } from './views/log-files.js';
import { ActivityPage } from './views/activity.js';
import { AlertsPage } from './views/alerts.js';
import { SettingsPage } from './views/settings.js';
import { SignInPage } from './views/sign-in.js';
import { NotFoundPage } from './views/not-found.js';

const PAGES = [
  { path: '/', label: 'Overview', view: OverviewPage },
  { path: '/applications', label: 'Applications', view: ApplicationsPage },
  { path: '/audit-users', label: 'Audit users', view: AuditUsersPage },
  { path: '/domains', label: 'Domains', view: DomainsPage },
  { path: '/log-files', label: 'Log files', view: LogFilesPage },
  { path: '/activity', label: 'Activity', view: ActivityPage },
  { path: '/alerts', label: 'Alerts', view: AlertsPage },
  { path: '/settings', label: 'Settings', view: SettingsPage },
] as const;

function PageError({ error, reset }: { error: unknown; reset: () => void }) {
  return (
    <div role="alert" class="panel error-panel">
      <h1>This page failed</h1>
      <p>{error instanceof Error ? error.message : String(error)}</p>
      <p>
        <button type="button" onClick={reset}>
          Try again
        </button>{' '}
        or choose another page above.
      </p>
    </div>
  );
}

function Content({ path }: { path: string }) {
  const [error, reset] = useErrorBoundary();
  if (error) return <PageError error={error} reset={reset} />;
  const page = PAGES.find((p) => p.path === path);
  if (!page) return <NotFoundPage />;
  const View = page.view;
  return <View />;
}

export function App() {
  const path = usePath();
  const shell = useRef<HTMLDivElement>(null);
  // One status call tells whether this browser is signed in; pages load their own data.
  const session = useResource(() => api.status(), []);
  useEffect(() => (shell.current ? interceptLinks(shell.current) : undefined), []);

  if (session.error && isSignedOut(session.error)) return <SignInPage />;
  return (
    <div ref={shell} class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="/" aria-label="Vigil console, overview">
          <span aria-hidden="true" class="brand-mark">
            ◉
          </span>{' '}
          Vigil
        </a>
        <nav aria-label="Console">
          <ul>
            {PAGES.map((page) => (
              <li key={page.path}>
                <a href={page.path} aria-current={page.path === path ? 'page' : undefined}>
                  {page.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <main id="main">
        <Content key={path} path={path} />
      </main>
    </div>
  );
}
