/**
 * HTTPS requests to a test agent's API that trust exactly its self-signed certificate (no
 * `rejectUnauthorized: false`), and helpers to enrol a client application and get tokens.
 */
import https from 'node:https';
import { readResponse, type TextResponse } from './read-response.js';
import type { TestAgent } from './test-agent.js';
import type { Permission } from '../../shared/permissions.js';

export type ApiResponse = TextResponse;

export interface ApiRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

const agents = new WeakMap<TestAgent, https.Agent>();

function httpsAgent(agent: TestAgent): https.Agent {
  let a = agents.get(agent);
  if (!a) {
    a = new https.Agent({ keepAlive: true, ca: agent.identity.certPem, maxSockets: 4 });
    agents.set(agent, a);
  }
  return a;
}

export async function apiRequest(agent: TestAgent, request: ApiRequest): Promise<ApiResponse> {
  try {
    return await sendOnce(agent, request);
  } catch (error) {
    // A kept-alive socket the server closed for idleness (keepAliveTimeout) just as this request
    // was written on it: the request never reached the agent, so it is sent again once, on a new
    // socket. Node's http documentation gives this pattern (request.reusedSocket).
    if ((error as ReusedSocketError).reusedSocket && (error as NodeJS.ErrnoException).code === 'ECONNRESET') {
      return sendOnce(agent, request);
    }
    throw error;
  }
}

type ReusedSocketError = Error & { reusedSocket?: boolean };

function sendOnce(agent: TestAgent, request: ApiRequest): Promise<ApiResponse> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port: agent.ports.api,
        method: request.method ?? 'GET',
        path: request.path,
        headers: request.headers ?? {},
        agent: httpsAgent(agent),
        timeout: 10_000,
      },
      (res) => readResponse(res, resolve),
    );
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', (error: ReusedSocketError) => {
      error.reusedSocket = req.reusedSocket;
      reject(error);
    });
    req.end(request.body);
  });
}

export const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

/** POST /api/v1/token with a form body built from `params` (no encoding surprises). */
export function tokenRequest(
  agent: TestAgent,
  params: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  return apiRequest(agent, {
    method: 'POST',
    path: '/api/v1/token',
    headers: { ...FORM, ...headers },
    body: new URLSearchParams(params).toString(),
  });
}

export interface EnrolledClient {
  clientId: string;
  clientSecret: string;
}

let counter = 0;

export async function enrolClient(agent: TestAgent, permissions: Permission[], name?: string): Promise<EnrolledClient> {
  const created = await agent.auth.clients.add({ name: name ?? `test client ${++counter}`, permissions }, 'test');
  return { clientId: created.clientId, clientSecret: created.clientSecret };
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
}

export async function obtainTokens(agent: TestAgent, client: EnrolledClient): Promise<Tokens> {
  const response = await tokenRequest(agent, {
    grant_type: 'client_credentials',
    client_id: client.clientId,
    client_secret: client.clientSecret,
  });
  if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${response.text}`);
  return response.json as unknown as Tokens;
}

export function bearer(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}` };
}

export function basic(id: string, secret: string): Record<string, string> {
  const encode = (s: string): string => new URLSearchParams({ x: s }).toString().slice(2);
  return { Authorization: `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString('base64')}` };
}
