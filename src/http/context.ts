import type { Supervisor } from '../actors/supervisor.js';
import type { Config } from '../config.js';
import type { Clock } from '../domain/clock.js';
import type { Store } from '../persistence/store.js';
import type { OrgService } from '../services/org.js';
import type { TaskService } from '../services/tasks.js';
import type { WakeupService } from '../services/wakeups.js';
import type { RoutineCatalogue } from '../services/routines/catalogue.js';
import type { RoutineFiring } from '../services/routines/firing.js';
import type { RunCancelService } from '../services/runCancel.js';
import type { LiveFeed } from '../events/liveFeed.js';
import type { QuotaService } from '../services/quotas.js';

/** What the routes call. Routes stay thin: they validate, call a service, and shape the answer. */
export interface AppContext {
  config: Config;
  store: Store;
  clock: Clock;
  org: OrgService;
  tasks: TaskService;
  wakeups: WakeupService;
  /** The routines and their triggers as written (catalogue), and fires from a person or a webhook (firing). */
  routines: { catalogue: RoutineCatalogue; firing: RoutineFiring };
  /** Stopping a run in flight (POST /api/office/runs/:id/cancel). */
  runCancels: RunCancelService;
  /** Shared quotas of the agent programs (GET /api/office/quotas). */
  quotas: QuotaService;
  supervisor: Supervisor;
  feed: LiveFeed;
  /** The owner of this process's agent leases: its replica id (with SQLite, one per boot). */
  replicaId?: string;
  isReady: () => boolean;
  metrics: () => Promise<string>;
}
