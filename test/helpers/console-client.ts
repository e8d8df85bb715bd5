/** Plain HTTP requests to a test agent's console, with full control of Host, Origin and cookies. */
import fs from 'node:fs';
import http from 'node:http';
import { readResponse, type TextResponse } from './read-response.js';
import type { TestAgent } from './test-agent.js';

export type ConsoleResponse = TextResponse;

export interface ConsoleRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
}

export function consoleRequest(agent: TestAgent, request: ConsoleRequest): Promise<ConsoleResponse> {
  const body = request.body === undefined ? undefined : JSON.stringify(request.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: agent.ports.console,
        method: request.method ?? 'GET',
        path: request.path,
        headers: {
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
          ...request.headers,
        },
        timeout: 10_000,
      },
      (res) => readResponse(res, resolve),
    );
    req.on('timeout', () => req.destroy(new Error('console request timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

export function consoleToken(agent: TestAgent): string {
  return fs.readFileSync(agent.paths.consoleToken, 'utf8').trim();
}

export function withToken(agent: TestAgent, headers: Record<string, string> = {}): Record<string, string> {
  return { Authorization: `Bearer ${consoleToken(agent)}`, ...headers };
}

/** A browser's console session: the cookie and the session key, as the web app sends them. */
export interface ConsoleSession {
  /** `vigil_console_<port>=<value>`, for a Cookie header. */
  cookie: string;
  sessionKey: string;
  /** Cookie, session key header and the console's own Origin, plus `extra`. */
  headers(extra?: Record<string, string>): Record<string, string>;
}

/** Follows a login link as a browser would: the cookie from Set-Cookie, the key from the fragment. */
export async function consoleLogin(agent: TestAgent): Promise<ConsoleSession> {
  const link = await consoleRequest(agent, { method: 'POST', path: '/api/login-links', headers: withToken(agent) });
  const url = new URL(link.json?.['url'] as string);
  const login = await consoleRequest(agent, { path: url.pathname + url.search });
  const cookie = (login.headers['set-cookie']?.[0] ?? '').split(';')[0]!;
  const sessionKey = /#session=([A-Za-z0-9_-]+)$/.exec(login.headers.location ?? '')?.[1] ?? '';
  const origin = `http://127.0.0.1:${agent.ports.console}`;
  return {
    cookie,
    sessionKey,
    headers: (extra = {}) => ({ Cookie: cookie, 'X-Vigil-Session': sessionKey, Origin: origin, ...extra }),
  };
}
