/**
 * The console's only door to the agent: typed calls to the console API on the same origin.
 * Errors come back as ConsoleApiError with the API's words, so views can show them as text.
 */

export class ConsoleApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ConsoleApiError';
  }
}

interface ErrorBody {
  error?: string;
  error_description?: string;
  field?: string;
}

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers:
        body === undefined
          ? { Accept: 'application/json' }
          : { Accept: 'application/json', 'Content-Type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
  } catch {
    throw new ConsoleApiError(0, 'unreachable', 'The agent does not answer. Is it running?');
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  const json = text ? (JSON.parse(text) as unknown) : undefined;
  if (!response.ok) {
    const error = (json ?? {}) as ErrorBody;
    throw new ConsoleApiError(
      response.status,
      error.error ?? 'http_' + response.status,
      error.error_description ?? `The agent answered ${response.status} ${response.statusText}.`,
      error.field,
    );
  }
  return json as T;
}

export interface AgentStatus {
  version: string | null;
  uptimeSeconds: number;
  certificateSha256: string;
  apiUrl?: string;
  auditUrl?: string;
  consoleUrl?: string;
}

export const api = {
  status: () => request<AgentStatus>('GET', '/api/status'),
};
