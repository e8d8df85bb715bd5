/**
 * Logs the console window in without showing a secret anywhere (shared/console-api.ts): the
 * main process reads the console token the agent wrote, asks the console for a session with
 * `POST /api/sessions` and `Authorization: Bearer <token>`, puts the returned cookie in the
 * window's session, and hands the session key to the page in the fragment of the address it
 * opens (`/#session=<key>`, which never leaves the window). The token never reaches a URL, a
 * window or a log line; errors name the HTTP status and the console's error code only.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import type { CookiesSetDetails } from 'electron';
import { CONSOLE_SESSION_FRAGMENT, ConsolePaths, type SessionResponse } from '../shared/console-api.js';

export class ConsoleSessionError extends Error {
  override name = 'ConsoleSessionError';
}

export async function readConsoleToken(file: string): Promise<string> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    throw new ConsoleSessionError(
      `the console token file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  const token = text.trim();
  if (!token) throw new ConsoleSessionError(`the console token file ${file} is empty`);
  return token;
}

function isSessionResponse(value: unknown): value is SessionResponse {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v['cookieName'] === 'string' &&
    /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(v['cookieName']) && // an RFC 6265 §4.1.1 cookie-name token
    typeof v['cookieValue'] === 'string' &&
    typeof v['sessionKey'] === 'string' &&
    /^[A-Za-z0-9_-]+$/.test(v['sessionKey']) && // base64url: safe in a URL fragment as it is
    typeof v['expiresAt'] === 'string' &&
    !Number.isNaN(Date.parse(v['expiresAt']))
  );
}

/** `error` of a `{"error","error_description"}` body, for messages; never the body itself. */
function errorCodeOf(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    return typeof parsed.error === 'string' && /^[a-z_]{1,64}$/.test(parsed.error) ? parsed.error : null;
  } catch {
    return null;
  }
}

export async function requestConsoleSession(
  consoleUrl: string,
  token: string,
  timeoutMs = 5000,
): Promise<SessionResponse> {
  const url = new URL(ConsolePaths.sessions, consoleUrl);
  if (url.protocol !== 'http:')
    throw new ConsoleSessionError(`the console URL must be http on loopback, not ${url.protocol}`);
  const payload = '{}';
  const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
        timeout: timeoutMs,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > 64 * 1024) request.destroy(new ConsoleSessionError('the console answered with an oversized body'));
          else chunks.push(chunk);
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    request.on('timeout', () =>
      request.destroy(new ConsoleSessionError(`the console did not answer within ${timeoutMs} ms`)),
    );
    request.on('error', (error) =>
      reject(
        error instanceof ConsoleSessionError
          ? error
          : new ConsoleSessionError(`the console cannot be reached: ${error.message}`),
      ),
    );
    request.end(payload);
  });
  if (status < 200 || status > 299) {
    const code = errorCodeOf(body);
    throw new ConsoleSessionError(`the console refused a session: HTTP ${status}${code ? ` ${code}` : ''}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = null;
  }
  if (!isSessionResponse(parsed))
    throw new ConsoleSessionError('the console answered the session request with an unexpected body');
  return parsed;
}

/** The cookie as the console would set it itself: host-only, HttpOnly, SameSite=Strict, path /. */
export function sessionCookie(consoleUrl: string, session: SessionResponse): CookiesSetDetails {
  return {
    url: new URL('/', consoleUrl).href,
    name: session.cookieName,
    value: session.cookieValue,
    path: '/',
    httpOnly: true,
    secure: false, // the console is plain HTTP on 127.0.0.1 (docs/architecture.md)
    sameSite: 'strict',
    expirationDate: Math.floor(Date.parse(session.expiresAt) / 1000),
  };
}

/** The console's address with the session key for the web app (shared/console-api.ts). */
export function sessionUrl(consoleUrl: string, session: Pick<SessionResponse, 'sessionKey'>): string {
  const url = new URL(consoleUrl);
  url.hash = `${CONSOLE_SESSION_FRAGMENT}=${session.sessionKey}`;
  return url.href;
}
