/**
 * Where the agent's three listeners are bound, known once they are: one record that every part
 * reads (the OpenAPI document's server, the console's Host check, the settings page, the tray's
 * "copy URL"), filled in once by `bind`.
 */

/** The console is for the person at this machine: loopback only, never a setting (docs/architecture.md). */
export const CONSOLE_HOST = '127.0.0.1';

export interface AgentUrls {
  apiUrl: string;
  auditUrl: string;
  consoleUrl: string;
}

export interface BoundPorts {
  api: number;
  audit: number;
  console: number;
}

export class Endpoints {
  private readonly bound: BoundPorts = { api: 0, audit: 0, console: 0 };

  /** `vendor`: the audit API's path segment, a setting that may change while the agent runs. */
  constructor(private readonly vendor: () => string) {}

  bind(ports: BoundPorts): void {
    Object.assign(this.bound, ports);
  }

  /** The bound ports (0 until the listeners are up). The same object for the agent's lifetime. */
  get ports(): Readonly<BoundPorts> {
    return this.bound;
  }

  consoleUrl(): string {
    return `http://${CONSOLE_HOST}:${this.bound.console}/`;
  }

  urls(): AgentUrls {
    return {
      apiUrl: `https://127.0.0.1:${this.bound.api}`,
      auditUrl: `https://127.0.0.1:${this.bound.audit}/${this.vendor()}/api/v1`,
      consoleUrl: this.consoleUrl(),
    };
  }
}
