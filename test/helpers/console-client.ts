/** Plain HTTP requests to a test agent's console, with full control of Host, Origin and cookies. */
import fs from 'node:fs';
import http from 'node:http';
import type { TestAgent } from './test-agent.js';

export interface ConsoleResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: Record<string, unknown> | undefined;
}

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
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let json: Record<string, unknown> | undefined;
          try {
            json = JSON.parse(text) as Record<string, unknown>;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
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
