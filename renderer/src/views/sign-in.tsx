/** Shown when this browser has no console session: how to get one, in words. */
export function SignInPage() {
  return (
    <main id="main" class="sign-in">
      <div class="panel">
        <h1>Sign in to the Vigil console</h1>
        <p>This browser is not signed in, or its session ended (sessions end when the agent restarts).</p>
        <ol>
          <li>
            In a terminal on this computer, run <code>vigil console</code>.
          </li>
          <li>Open the link it prints within 60 seconds. Each link works once.</li>
        </ol>
        <p>The Vigil tray app signs its console window in by itself.</p>
        <p>
          <button type="button" onClick={() => location.reload()}>
            Check again
          </button>
        </p>
      </div>
    </main>
  );
}
