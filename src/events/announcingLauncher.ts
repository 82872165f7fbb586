import type { ExecutorSpec } from '../domain/executors.js';
import type { Executors } from '../executors/index.js';
import type { LaunchRequest, LaunchResult } from '../dispatch/launch.js';
import type { LiveFeed } from './liveFeed.js';

/** Launches runs through the executors and tells the live feed when each starts and ends. */
export class AnnouncingLauncher {
  constructor(private readonly executors: Executors, private readonly feed: LiveFeed) {}

  /** The pipeline's launch callback (an arrow, so it can be passed as it is). */
  readonly launch = (spec: ExecutorSpec, request: LaunchRequest): Promise<LaunchResult> => {
    this.announce(request, 'running');
    return this.executors.launch(spec, request).finally(() => this.announce(request, 'ended'));
  };

  private announce(request: LaunchRequest, status: 'running' | 'ended'): void {
    this.feed.trigger.publish({ item: { kind: 'run', run_id: request.runId, agent_id: request.agentId, status } });
  }
}
