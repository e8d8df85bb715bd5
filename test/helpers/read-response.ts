/** A test client's answer: status, headers, the body as text, and as JSON when it is JSON. */
import type http from 'node:http';

export interface TextResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  json: Record<string, unknown> | undefined;
}

export function readResponse(res: http.IncomingMessage, resolve: (response: TextResponse) => void): void {
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
}
