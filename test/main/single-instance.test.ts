/** One tray app per session; a second launch brings the console forward. */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { claimSingleInstance, type SingleInstanceApp } from '../../main/single-instance.js';

/** Electron's single-instance contract: the lock is granted to one process only. */
class InstanceApp extends EventEmitter implements SingleInstanceApp {
  quits = 0;
  constructor(private readonly lock: { holder: InstanceApp | null }) {
    super();
  }
  requestSingleInstanceLock(): boolean {
    if (this.lock.holder && this.lock.holder !== this) return false;
    this.lock.holder = this;
    return true;
  }
  quit(): void {
    this.quits += 1;
  }
  /** What Electron does in the first instance when a second one asks for the lock. */
  launchedAgain(argv: string[]): void {
    this.emit('second-instance', {}, argv, '/home/ada');
  }
}

describe('single instance', () => {
  it('the first instance keeps running; the second quits at once and does not register', () => {
    const lock = { holder: null as InstanceApp | null };
    const first = new InstanceApp(lock);
    const second = new InstanceApp(lock);
    const focused: string[] = [];
    expect(claimSingleInstance(first, () => focused.push('first'))).toBe(true);
    expect(claimSingleInstance(second, () => focused.push('second'))).toBe(false);
    expect(first.quits).toBe(0);
    expect(second.quits).toBe(1);
    expect(second.listenerCount('second-instance')).toBe(0);
  });

  it('each later launch focuses the console in the first instance', () => {
    const first = new InstanceApp({ holder: null });
    let opened = 0;
    claimSingleInstance(first, () => (opened += 1));
    first.launchedAgain(['vigil']);
    first.launchedAgain(['vigil', '--hidden']);
    expect(opened).toBe(2);
  });
});
