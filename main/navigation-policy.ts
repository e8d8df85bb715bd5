/**
 * Which URLs the console window may show: the console listener's own origin and nothing else
 * (scheme, host and port compared exactly, as the WHATWG URL "origin" defines them). Userinfo
 * tricks such as `http://127.0.0.1:4495@evil.example/` parse to another origin and are refused.
 */
export function originOf(url: string): string | null {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

export function isConsoleUrl(url: string, consoleOrigin: string | null): boolean {
  if (!consoleOrigin) return false;
  return originOf(url) === consoleOrigin;
}
