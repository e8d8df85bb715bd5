/**
 * Absolute links of the agent API's resources (docs/agent-api.md: every resource has an absolute
 * `url`). The origin is the one the client used to reach the agent (always HTTPS).
 */
import type Koa from 'koa';

const seg = encodeURIComponent;

export class ApiLinks {
  constructor(readonly origin: string) {}

  static of(ctx: Koa.Context, fallbackPort: number): ApiLinks {
    return new ApiLinks(`https://${requestHost(ctx) || `127.0.0.1:${fallbackPort}`}`);
  }

  private at(path: string): string {
    return `${this.origin}/api/v1/${path}`;
  }

  agent(id: string): string {
    return this.at(`agents/${seg(id)}`);
  }
  host(id: string): string {
    return this.at(`hosts/${seg(id)}`);
  }
  hostOutput(hostId: string, outputId: string): string {
    return this.at(`hosts/${seg(hostId)}/outputs/${seg(outputId)}`);
  }
  domain(id: string): string {
    return this.at(`domains/${seg(id)}`);
  }
  domainOutput(domainId: string, outputId: string): string {
    return this.at(`domains/${seg(domainId)}/outputs/${seg(outputId)}`);
  }
  policy(domainId: string, id: string): string {
    return this.at(`domains/${seg(domainId)}/policies/${seg(id)}`);
  }
  logs(outputId: string): string {
    return this.at(`logs/${seg(outputId)}`);
  }
  logFile(fileId: string): string {
    return this.at(`logs/get/${seg(fileId)}`);
  }
}

/**
 * `ctx.host` for the usual request: the Host header as it came. Koa's getter splits every
 * value at commas and looks for userinfo on each call, which the profile of GET /agents/{id}
 * showed as a visible share; those rare headers still take it.
 */
function requestHost(ctx: Koa.Context): string {
  const host = ctx.req.headers.host;
  if (host === undefined || host.includes(',') || host.includes('@') || host.trim() !== host) return ctx.host;
  return host;
}
