/**
 * Turns the tray's menu model into Electron menu templates. Each click runs one TrayAction;
 * the action runner (tray-actions.ts) reports its own failures, so a click never throws into
 * Electron's event loop.
 */
import type { MenuItemConstructorOptions } from 'electron';
import type { TrayAction, TrayMenuItem } from './tray-model.js';

export function menuTemplate(items: TrayMenuItem[], run: (action: TrayAction) => void): MenuItemConstructorOptions[] {
  return items.map((item): MenuItemConstructorOptions => {
    switch (item.kind) {
      case 'separator':
        return { type: 'separator' };
      case 'label':
        return { label: item.label, enabled: false };
      case 'action':
        return { label: item.label, enabled: item.enabled, click: () => run(item.action) };
      case 'checkbox':
        return {
          label: item.label,
          type: 'checkbox',
          enabled: item.enabled,
          checked: item.checked,
          click: () => run(item.action),
        };
    }
  });
}
