import { Page } from '../components/page.js';

export function NotFoundPage() {
  return (
    <Page title="Page not found">
      <p>
        There is no such page in the console. Go to the <a href="/">overview</a>.
      </p>
    </Page>
  );
}
