/**
 * What the console shows about monitoring, built from the settings (what is configured) and
 * the status registry (what is happening): hosts, outputs and the monitoring state. Changes go
 * through the resource services (monitoring-router.ts), which answer with these same views.
 */
import type { HostView, MonitoringView, OutputView, RuntimeStatusView } from '../../shared/console-api.js';
import type { Settings } from '../config/settings-schema.js';
import type { DomainOutputSettings, OutputSettings } from '../config/monitoring-schema.js';
import type { MonitoringControl } from '../monitor/monitoring-control.js';
import type { StatusItem, StatusRegistry } from '../status/status-registry.js';

const statusView = (item: StatusItem | undefined): RuntimeStatusView | null =>
  item ? { type: item.type, summary: item.summary, details: item.details, updatedAt: item.updatedAt } : null;

export function hostViews(settings: Readonly<Settings>, status: StatusRegistry): HostView[] {
  return settings.hosts.map((host) => {
    const runtime = status.host(host.id);
    return {
      id: host.id,
      name: host.host,
      type: host.type,
      enabled: host.isEnabled,
      includePaths: [...host.includePaths],
      excludePaths: [...host.excludePaths],
      status: statusView(runtime?.status),
      receivedCount: runtime?.stats.receivedCount ?? 0,
      lastEventTime: runtime?.stats.lastEventTime ?? null,
      droppedCount: runtime?.stats.droppedCount ?? 0,
      ...(status.hostAttribution(host.id) ?? { attribution: 'none', attributionReason: 'not running' }),
    };
  });
}

export function describeOutput(output: OutputSettings | DomainOutputSettings): string {
  if (output.type === 'Syslog' && output.syslog) {
    return `syslog to ${output.syslog.server} over ${output.syslog.protocol}`;
  }
  const options = output.logFile;
  if (!options) return 'log files';
  const days = options.daysToRetain === 1 ? '1 day' : `${options.daysToRetain} days`;
  return `${options.format === 'Json' ? 'JSON' : 'TSV'} log files, kept ${days}${options.zipClosedFiles ? ', closed days zipped' : ''}`;
}

/** The hosts' outputs, then the directory domains'. */
export function outputViews(settings: Readonly<Settings>, status: StatusRegistry): OutputView[] {
  const hostNames = new Map(settings.hosts.map((h) => [h.id, h.host]));
  const domainNames = new Map(settings.domains.map((d) => [d.id, d.name]));
  const owned = [
    ...settings.outputs.map((output) => ({
      output,
      hostId: output.hostId,
      domainId: null,
      ownerName: hostNames.get(output.hostId) ?? output.hostId,
    })),
    ...settings.domainOutputs.map((output) => ({
      output,
      hostId: null,
      domainId: output.domainId,
      ownerName: domainNames.get(output.domainId) ?? output.domainId,
    })),
  ];
  return owned.map(({ output, hostId, domainId, ownerName }) => {
    const runtime = status.output(output.id);
    const stats = runtime?.stats;
    return {
      id: output.id,
      hostId,
      domainId,
      ownerName,
      type: output.type,
      enabled: output.isEnabled,
      description: describeOutput(output),
      status: statusView(runtime?.status),
      reportedCount: stats?.reportedCount ?? 0,
      lastEventTime: stats?.lastEventTime ?? null,
      droppedCount: stats?.droppedCount ?? 0,
      filesCount: stats?.filesCount ?? 0,
      filesSize: stats?.filesSize ?? 0,
    };
  });
}

export function monitoringView(control: MonitoringControl): MonitoringView {
  return { paused: control.paused, todayCount: control.todayCount(), issues: control.issues() };
}
