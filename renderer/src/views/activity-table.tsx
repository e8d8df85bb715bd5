/**
 * Activity records as a table. Every value is attacker-controlled (file names, paths, user names
 * from the machine): it is rendered as text, with invisible and direction-changing characters
 * made visible (safe-text.ts), never as HTML or a link.
 */
import { useState } from 'preact/hooks';
import type { ActivityRecord } from '../../../shared/activity-record.js';
import { formatTime } from '../format.js';
import { visibleText } from '../safe-text.js';

function Details({ record }: { record: ActivityRecord }) {
  return (
    <dl class="record-details">
      <dt>RID</dt>
      <dd class="mono">{record.RID}</dd>
      <dt>Object type</dt>
      <dd>{visibleText(record.ObjectType)}</dd>
      <dt>Where</dt>
      <dd>{visibleText(record.Where)}</dd>
      {record.Workstation ? (
        <>
          <dt>Workstation</dt>
          <dd>{visibleText(record.Workstation)}</dd>
        </>
      ) : null}
      {record.MonitoringPlan ? (
        <>
          <dt>Monitoring plan</dt>
          <dd>{visibleText(record.MonitoringPlan.Name)}</dd>
        </>
      ) : null}
      {record.Item ? (
        <>
          <dt>Item</dt>
          <dd>{visibleText(record.Item.Name)}</dd>
        </>
      ) : null}
      {(record.DetailList ?? []).map((d, i) => (
        <>
          <dt key={`d${i}`}>{visibleText(d.PropertyName)}</dt>
          <dd key={`v${i}`}>
            {d.Before !== undefined ? `${visibleText(d.Before)} → ` : ''}
            {d.After !== undefined ? visibleText(d.After) : ''}
            {d.Message !== undefined ? visibleText(d.Message) : ''}
          </dd>
        </>
      ))}
    </dl>
  );
}

export function ActivityTable({ records, caption }: { records: ActivityRecord[]; caption: string }) {
  const [open, setOpen] = useState<string | null>(null);
  return (
    <div class="table-wrap">
      <table class="activity">
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Action</th>
            <th scope="col">What</th>
            <th scope="col">Who</th>
            <th scope="col">Source</th>
          </tr>
        </thead>
        <tbody>
          {records.map((record) => (
            <>
              <tr key={record.RID}>
                <td class="nowrap">{formatTime(record.When)}</td>
                <td>
                  {visibleText(record.Action)}
                  <div class="hint">{visibleText(record.ObjectType)}</div>
                </td>
                <td class="path">
                  <button
                    type="button"
                    class="link"
                    aria-expanded={open === record.RID}
                    onClick={() => setOpen(open === record.RID ? null : record.RID)}
                  >
                    <bdi>{visibleText(record.What)}</bdi>
                  </button>
                </td>
                <td>
                  <bdi>{visibleText(record.Who)}</bdi>
                </td>
                <td>{visibleText(record.DataSource)}</td>
              </tr>
              {open === record.RID ? (
                <tr key={`${record.RID}-details`} class="details-row">
                  <td colSpan={5}>
                    <Details record={record} />
                  </td>
                </tr>
              ) : null}
            </>
          ))}
        </tbody>
      </table>
    </div>
  );
}
