/**
 * The activity record of a fired alert (docs/alerts.md): DataSource `Vigil Agent`, Action
 * `Activated`, ObjectType `Alert`, Who the actor, What the rule's name, and details with the
 * count, the window, the threshold and the first paths. It is a broadcast item, so every syslog
 * output receives it whatever its host and file filter (agent/outputs/output-manager.ts).
 */
import { DataSources, formatWhen, type ActivityDetail } from '../../shared/activity-record.js';
import type { AlertView } from '../../shared/console-api.js';
import type { PipelineItem } from '../pipeline/pipeline-item.js';

export function alertToItem(alert: AlertView, workstation: string, timeMs: number): PipelineItem {
  const details: ActivityDetail[] = [
    { PropertyName: 'AlertId', After: alert.id },
    { PropertyName: 'Rule', After: alert.rule },
    { PropertyName: 'Count', After: String(alert.count) },
    { PropertyName: 'WindowSeconds', After: String(alert.windowSeconds) },
    { PropertyName: 'Threshold', After: String(alert.threshold) },
    { PropertyName: 'Actions', After: alert.actions.join(', ') },
    { PropertyName: 'Per', After: alert.per === 'actor' ? `actor ${alert.key}` : `host ${alert.key}` },
    { PropertyName: 'FirstPaths', After: alert.firstPaths.join('; ') },
  ];
  return {
    record: {
      Who: alert.who,
      Action: 'Activated',
      What: alert.rule,
      When: formatWhen(new Date(timeMs)),
      Where: alert.where,
      ObjectType: 'Alert',
      DataSource: DataSources.agent,
      Workstation: workstation,
      DetailList: details,
    },
    timeMs,
    broadcast: true,
  };
}
