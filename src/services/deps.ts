import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Clock } from '../domain/clock.js';
import type { Store } from '../persistence/store.js';

/** What every service is built with. Passed through constructors: nothing is wired by setters. */
export interface ServiceDeps {
  store: Store;
  clock: Clock;
  config: Config;
  log: Logger;
}

/** What the wakeup service tells the agent actors once a write has committed. */
export interface WakeupNotifier {
  wakeupQueued(agentId: string, wakeupId: string, availableAt: number): void;
  wakeupWithdrawn(agentId: string, wakeupId: string): void;
}
