/**
 * Absolute links of the agent API's resources (DESIGN.md §4: every resource has an absolute
 * `url`). The origin is the one the client used to reach the agent (always HTTPS).
 */
import type Koa from 'koa';

const seg = encodeURIComponent;

export class ApiLinks {
  constructor(readonly origin: string) {}

  static of(ctx: Koa.Context, fallbackPort: number): ApiLinks {
    return new ApiLinks(`https://${ctx.host || `127.0.0.1:${fallbackPort}`}`);
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
