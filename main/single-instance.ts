/**
 * One tray app per user session (Electron `app.requestSingleInstanceLock`). A second launch
 * exits at once; the first instance hears about it through `second-instance` and brings the
 * console forward, which is what the person who launched it again wanted to see.
 */
export interface SingleInstanceApp {
  requestSingleInstanceLock(): boolean;
  on(event: 'second-instance', listener: () => void): unknown;
  quit(): void;
}

/** Returns false when another instance holds the lock; this one is then quitting. */
export function claimSingleInstance(app: SingleInstanceApp, onSecondLaunch: () => void): boolean {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return false;
  }
  app.on('second-instance', () => onSecondLaunch());
  return true;
}
