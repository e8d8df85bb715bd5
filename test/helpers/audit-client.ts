/**
 * A small HTTPS client for the audit API: keep-alive, the agent's certificate as the only CA.
 * Every XML document it receives is validated against docs/schemas/ (every XML
 * response in the tests), so a test cannot forget to.
 */
import https from 'node:https';
import type { TestAgent } from './test-agent.js';
import { validateResponse } from './xml-schema.js';

export interface AuditResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface AuditRequest {
  method?: string;
  /** Path after `/{vendor}/api/v1/`, with the query string, e.g. `activity_records/enum?count=5`. */
  path: string;
  body?: string | Buffer;
  contentType?: string;
  /** `user:password`, or null for no Authorization header. */
  auth?: string | null;
  headers?: Record<string, string>;
  /** Overrides the vendor segment (default: the agent's setting). */
  vendor?: string;
}

export class AuditClient {
  private readonly agent: https.Agent;

  constructor(
    private readonly running: TestAgent,
    private readonly defaultAuth: string,
  ) {
    this.agent = new https.Agent({ keepAlive: true, ca: running.identity.certPem, maxSockets: 8 });
  }

  request(req: AuditRequest): Promise<AuditResponse> {
    const vendor = req.vendor ?? this.running.settings.current.auditApi.vendor;
    const headers: Record<string, string> = { ...req.headers };
    const auth = req.auth === undefined ? this.defaultAuth : req.auth;
    if (auth !== null) headers['Authorization'] = `Basic ${Buffer.from(auth).toString('base64')}`;
    if (req.contentType) headers['Content-Type'] = req.contentType;
    const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body);
    if (body) headers['Content-Length'] = String(body.length);
    return new Promise((resolve, reject) => {
      const request = https.request(
        {
          host: '127.0.0.1',
          port: this.running.ports.audit,
          path: req.path.startsWith('/') ? req.path : `/${vendor}/api/v1/${req.path}`,
          method: req.method ?? (body ? 'POST' : 'GET'),
          headers,
          agent: this.agent,
          servername: 'localhost',
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const body = Buffer.concat(chunks).toString('utf8');
            try {
              if (/^application\/xml/.test(String(res.headers['content-type'] ?? ''))) validateResponse(body, vendor);
              resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
            } catch (error) {
              reject(error as Error);
            }
          });
          res.on('error', reject);
        },
      );
      request.setTimeout(30_000, () => request.destroy(new Error('audit request timed out')));
      request.on('error', reject);
      request.end(body);
    });
  }

  /** POST a JSON value with `format=json` added to the query. */
  postJson(path: string, value: unknown, extra: Partial<AuditRequest> = {}): Promise<AuditResponse> {
    const withFormat = path.includes('?') ? `${path}&format=json` : `${path}?format=json`;
    return this.request({
      path: withFormat,
      body: JSON.stringify(value),
      contentType: 'application/json; charset=UTF-8',
      ...extra,
    });
  }

  postXml(path: string, xml: string, extra: Partial<AuditRequest> = {}): Promise<AuditResponse> {
    return this.request({ path, body: xml, contentType: 'application/xml; charset=UTF-8', ...extra });
  }

  close(): void {
    this.agent.destroy();
  }
}
