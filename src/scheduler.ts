/**
 * Wires Office Scheduler together. `createScheduler` is also the embedding API: it returns
 * `{ app, store, events, start, stop }`, and every dependency is passed in here, at construction.
 */
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import pinoPretty from 'pino-pretty';
import { Registry } from 'prom-client';
import type { InspectionEvent } from 'xstate';
import { createAfterRun } from './dispatch/afterRun.js';
import { RunPipeline } from './dispatch/pipeline.js';
import { RecoverySweep } from './dispatch/recovery.js';
import { AgentOwnership, newOwnerId } from './actors/ownership.js';
import { ReplicaMembership } from './actors/replicas.js';
import { Supervisor } from './actors/supervisor.js';
import { TriggerSupervisor } from './actors/triggers.js';
import { loadConfig, type Config } from './config.js';
import { SECRET_LOG_PATHS, SECRET_MASK } from './domain/secrets.js';
import { EventBus, OUTBOX_CLAIM_MS } from './events/bus.js';
import { createEventParker } from './events/parking.js';
import { AnnouncingLauncher } from './events/announcingLauncher.js';
import { createLiveFeed, type LiveFeed } from './events/liveFeed.js';
import { LiveNotifier } from './events/liveNotifier.js';
import { OutboxAcknowledger } from './events/outboxAcknowledger.js';
import { ReplicaSignals } from './events/replicaSignals.js';
import { announceCancelledRun, stopCancelledSessions } from './events/runStops.js';
import { registerSubscribers } from './events/subscribers/index.js';
import { feedTaskChanges } from './events/taskFeed.js';
import { createExecutors } from './executors/index.js';
import { stopLeftoverSessions } from './executors/sessions.js';
import type { AgentFunction } from './executors/types.js';
import { buildApp } from './http/app.js';
import { RunMetrics, SchedulerMetrics } from './http/metrics.js';
import { wallClock, type Clock } from './domain/clock.js';
import { createStore, openReplicaSignals } from './persistence/createStore.js';
import type { Store } from './persistence/store.js';
import type { StatementProfile } from './persistence/shared/statementProfile.js';
import { OrgService } from './services/org.js';
import { QuotaService } from './services/quotas.js';
import { DeliveryService } from './services/delivery.js';
import { RoutineCatalogue } from './services/routines/catalogue.js';
import { RoutineFiring } from './services/routines/firing.js';
import { RoutineOutcomes } from './services/routines/outcomes.js';
import { RoutineRouting } from './services/routines/routing.js';
import { Retention } from './services/retention.js';
import { RunCancelService } from './services/runCancel.js';
import { TaskService } from './services/tasks.js';
import { WakeupService } from './services/wakeups.js';
import { WakeupTracing } from './telemetry/tracing.js';
import { startTracingSdk, type TracingSdk } from './wiring/tracingSdk.js';
import { Later } from './wiring/later.js';
import { AgentActorsPort, EventSink, RoutineChangesPort, assertAttached } from './wiring/ports.js';

export interface SchedulerOptions {
  config?: Config;
  clock?: Clock;
  logger?: Logger;
  /** In-process agents for the `function` executor, by name. */
  functions?: Map<string, AgentFunction>;
  random?: () => number;
  /** Actor inspection (e.g. @statelyai/inspect). */
  inspect?: (event: InspectionEvent) => void;
  /** Times every statement and commit of the store into this profile (the bench's `--sql`). */
  statementProfile?: StatementProfile;
}

export interface Scheduler {
  app: FastifyInstance;
  store: Store;
  events: EventBus;
  config: Config;
  supervisor: Supervisor;
  triggers: TriggerSupervisor;
  recovery: RecoverySweep;
  /** This process as one replica on the database: its leases, heartbeat and hand-overs. */
  replicas: ReplicaMembership;
  /** Pruning of old history (OFFICE_RETENTION_DAYS), on its timer. */
  retention: Retention;
  feed: LiveFeed;
  /** This scheduler's Prometheus registry (/metrics): a component adds its own figures with `registers: [metrics]`. */
  metrics: Registry;
  services: { org: OrgService; tasks: TaskService; routines: { catalogue: RoutineCatalogue; firing: RoutineFiring }; wakeups: WakeupService };
  /** Restores actors, replays undelivered events, sweeps, and listens (unless listen is false). */
  start(options?: { listen?: boolean }): Promise<{ url: string | null }>;
  /** Stops accepting work, lets running sessions finish (or marks them), and closes the database. */
  stop(): Promise<void>;
}

/**
 * The scheduler's logger. An executor's secrets (its env, an HTTP agent's headers) are redacted on
 * every line that carries one, whichever module logs it.
 */
export function createLogger(config: Pick<Config, 'logLevel'> & Partial<Pick<Config, 'logFormat'>>, destination?: pino.DestinationStream): Logger {
  const options = { level: config.logLevel, base: { service: 'office-scheduler' }, redact: { paths: [...SECRET_LOG_PATHS], censor: SECRET_MASK } };
  if (destination) return pino(options, destination);
  // A person at a terminal reads lines; a log collector (no terminal, or OFFICE_LOG_FORMAT=json) reads JSON.
  const pretty = config.logFormat === 'pretty' || (config.logFormat === undefined && process.stdout.isTTY === true);
  // sync: the lines reach the terminal in the order they were logged, before the start summary main.ts prints after them.
  return pretty ? pino(options, pinoPretty({ colorize: process.stdout.isTTY === true, ignore: 'pid,hostname,service', translateTime: 'SYS:HH:MM:ss', singleLine: true, sync: true })) : pino(options);
}

export async function createScheduler(options: SchedulerOptions = {}): Promise<Scheduler> {
  const config = options.config ?? loadConfig();
  const clock = options.clock ?? wallClock;
  const log = options.logger ?? createLogger(config);
  let ready = false;
  let listeningUrl: string | null = null;
  const serverUrl = new Later<string>();
  // The three cycles of the wiring, each broken by a port built first and attached below, once the
  // part it forwards to exists (wiring/ports.ts): store -> bus, notifier -> supervisor, routine
  // services -> trigger actors. Every port is asserted attached before this function returns.
  const metrics = new Registry();
  const runMetrics = new RunMetrics(metrics);
  const committedEvents = new EventSink();
  const agentActors = new AgentActorsPort();
  const routineChanges = new RoutineChangesPort();

  // The replica owns the agent leases: with PostgreSQL, OFFICE_REPLICA_ID, holding a share of the
  // agents under expiring leases. With SQLite an owner per boot, as ever: it takes every agent at start
  // under leases that never expire, and the events an earlier boot claimed are never its own.
  const owner = config.databaseUrl ? config.replicaId : newOwnerId();
  const leaseMs = config.databaseUrl ? config.leaseSec * 1000 : null;
  // Several replicas share PostgreSQL: their outbox claims expire, so that a dead one's events are delivered by another.
  const outboxClaimMs = config.databaseUrl ? OUTBOX_CLAIM_MS : undefined;
  const store = createStore(config, {
    owner,
    outboxClaimMs,
    now: () => clock.now(),
    publish: committedEvents.publish,
    durable: committedEvents.durable,
    withinTransaction: committedEvents.withinTransaction,
    onFatal: (error) => log.fatal({ err: error }, 'the store failed outside any unit of work'),
    timers: clock,
    log,
    statementProfile: options.statementProfile,
  });
  const outbox = new OutboxAcknowledger(store, log);
  const bus = new EventBus(log, outbox.acknowledge, { clock, park: createEventParker({ store, clock, log }), transaction: (work) => store.transaction(work),
    claims: outboxClaimMs === undefined ? undefined : { owner, durationMs: outboxClaimMs } });
  committedEvents.attach(bus);

  const ownership = new AgentOwnership({ store, log, clock, leaseMs }, owner);
  const feed = createLiveFeed();
  const notifier = new LiveNotifier(agentActors, feed, log);
  const deps = { store, clock, config, log };
  // Routine result deliveries survive the process: with SQLite a boot takes over whatever an earlier one claimed.
  const deliveries = new DeliveryService({ ...deps, owner, random: options.random ?? Math.random, takeOverAtStart: outboxClaimMs === undefined });
  const routineOutcomes = new RoutineOutcomes(deps, deliveries, routineChanges);
  // One trace per wakeup, on the OpenTelemetry API: the SDK's tracer once start() started it (tracing on), else the no-op one.
  const tracing = new WakeupTracing(owner);
  let tracingSdk: TracingSdk | null = null;
  const wakeups = new WakeupService(config, log, notifier, routineOutcomes, tracing);
  const tasks = new TaskService(deps, notifier, wakeups, routineOutcomes);
  const routines = {
    catalogue: new RoutineCatalogue(deps, routineOutcomes, routineChanges),
    firing: new RoutineFiring(deps, new RoutineRouting(deps, wakeups, tasks, routineOutcomes), routineOutcomes),
  };
  const recovery = new RecoverySweep({ store, clock, log, config, wakeups, owns: (agentId) => ownership.holds(agentId) });
  const org = new OrgService(deps, wakeups, routines.catalogue, (agent) => notifier.agentChanged(agent.id), notifier, (agentId) => void recovery.sweepAgent(agentId),
    (tx, agentId) => ownership.takeWithin(tx, agentId));
  const environment = { host: process.env, extraNames: config.agentEnvNames };
  const executors = createExecutors(options.functions ?? new Map(), { runTimeoutSec: config.runTimeoutSec, stopGraceMs: config.shutdownGraceMs, environment });
  const quotas = new QuotaService({ config, log, host: environment.host });

  const pipeline = new RunPipeline({
    store, clock, config, log, wakeups, routineOutcomes, owner,
    fenceOf: (agentId) => ownership.fenceOf(agentId),
    launch: new AnnouncingLauncher(executors, feed).launch,
    stopLeftoverSessions,
    random: options.random ?? Math.random,
    apiUrl: () => config.apiUrl ?? serverUrl.promise,
    afterRun: createAfterRun({ config, log, wakeups, tasks, agentChanged: notifier.agentChanged }),
    agentChanged: notifier.agentChanged,
    quotaKeyOf: quotas.keyOf,
    exhaustQuota: async (tx, exhaustion, now) => {
      await quotas.exhaust(tx, exhaustion, now);
      tx.afterCommit(() => notifier.quotaChanged(exhaustion.key));
    },
    transcripts: { store, clock, timers: wallClock, log, maxBytes: config.transcriptMaxBytes, publish: notifier.transcriptPrinted },
    observer: runMetrics,
    tracing,
  });
  // A cancel stops its run's session wherever it runs: announced on the feed, which replicas relay.
  const runCancels = new RunCancelService({ store, clock, log, wakeups, routineOutcomes, stopSession: (run) => announceCancelledRun(feed, run),
    observer: runMetrics });
  const stopCancelListener = stopCancelledSessions(feed, (runId) => pipeline.stopSession(runId));
  const supervisor = new Supervisor({
    store, clock, log, ownership, inspect: options.inspect,
    process: (wakeupId, fence) => pipeline.process(wakeupId, fence),
    onActorChange: notifier.actorChanged,
  });
  agentActors.attach(supervisor);
  const triggers = new TriggerSupervisor({
    store, clock, log, routines: routines.firing, owner, inspect: options.inspect, holds: (agentId) => ownership.holds(agentId),
    onFired: notifier.routineFired,
  });
  const replicas = new ReplicaMembership({
    store, clock, log, ownership, leaseMs,
    adopt: async (agentIds) => {
      await pipeline.recoverAfterCrash(agentIds);
      await supervisor.adopt(agentIds);
      await triggers.adopt(agentIds);
    },
    letGo: (agentIds) => {
      supervisor.release(agentIds);
      triggers.release(agentIds);
      pipeline.abortFor(agentIds);
    },
    canHandOver: (agentId) => !pipeline.runsFor(agentId),
    // A cancel is a row: a replica whose relayed signal was lost still stops the session within a heartbeat.
    afterHeartbeat: () => pipeline.stopCancelledSessions(),
  });
  registerSubscribers(bus, { store, clock, log, wakeups });
  // Several replicas (PostgreSQL): wakeups reach the replica holding their agent, and every live feed carries every replica's entries.
  const signals = openReplicaSignals(store, owner);
  const replicaSignals = new ReplicaSignals({
    store, feed, log, clock, holds: (agentId) => ownership.holds(agentId), wakeupQueued: (...args) => supervisor.wakeupQueued(...args),
    wakeupWithdrawn: (...args) => supervisor.wakeupWithdrawn(...args),
    agentChanged: notifier.agentChanged,
    routineChanged: (id) => triggers.routineChanged(id),
    reconcileTriggers: () => triggers.reconcileHeld(),
    takeExpiredEvents: () => bus.replayUndelivered(owner, { takeOver: false }),
  });
  // A change refreshes this replica's trigger actors and tells the others (the one holding the assignee runs them).
  routineChanges.attach({
    routineChanged: (id) => {
      triggers.routineChanged(id);
      replicaSignals.routineChanged(id);
      notifier.routineChanged(id);
    },
  });
  const retention = new Retention({ store, clock, log, config, owner });
  const stopRelay = signals ? replicaSignals.relayTo(signals, bus) : () => undefined;
  const stopTaskFeed = feedTaskChanges(bus, feed);

  const schedulerMetrics = new SchedulerMetrics(metrics, { store, supervisor, triggers, pipeline, replicas, retention });
  const app = await buildApp({
    config, store, clock, org, tasks, wakeups, routines, runCancels, quotas, supervisor, feed, replicaId: owner,
    isReady: () => ready,
    metrics: () => schedulerMetrics.render(),
  }, log);
  assertAttached(committedEvents, agentActors, routineChanges);

  return {
    app, store, events: bus, config, supervisor, triggers, recovery, replicas, retention, feed, metrics,
    services: { org, tasks, routines, wakeups },
    async start(startOptions = {}) {
      tracingSdk = await startTracingSdk(config);
      // First take this replica's agents (fencing out a dead process's leases: every agent with
      // SQLite): recovery, the actors and the triggers touch only what this process owns.
      await replicas.join();
      await pipeline.recoverAfterCrash();
      // With SQLite every earlier owner is dead (the database lock proves it); replicas take only expired claims.
      await bus.replayUndelivered(owner, { takeOver: outboxClaimMs === undefined });
      // Listening before the actors read the rows: a wakeup committed in between is heard, not missed.
      await signals?.start(replicaSignals);
      await supervisor.boot();
      await triggers.boot();
      // The actors run from here: the agents peers hand over while this replica still boots are
      // taken now (recovered, restored, their triggers started), not once the whole boot is done.
      await replicas.start();
      if (startOptions.listen !== false) {
        await app.listen({ host: config.host, port: config.port });
        const address = app.server.address();
        listeningUrl = typeof address === 'object' && address ? `http://${config.host}:${address.port}` : null;
      }
      serverUrl.known(listeningUrl ?? `http://${config.host}:${config.port}`);
      await recovery.start();
      deliveries.start();
      retention.start();
      ready = true;
      log.info({ url: listeningUrl, db: config.dbPath }, 'office scheduler ready');
      return { url: listeningUrl };
    },
    async stop() {
      ready = false;
      recovery.stop();
      await retention.stop();
      // No new claims or fires; sessions already running finish (or are marked interrupted) while
      // the API still answers their calls; whatever is still queued waits in the rows for the next boot.
      await triggers.stop();
      await supervisor.stop();
      await deliveries.stop();
      // Several replicas: the agents with no session running here are handed over at once, the rest once their sessions drained.
      await replicas.handOverIdle();
      await pipeline.drain(config.shutdownGraceMs);
      await replicas.leave();
      await app.close();
      stopRelay();
      stopTaskFeed();
      stopCancelListener();
      replicaSignals.stop();
      await signals?.close();
      // Events waiting for a retry stay in the outbox; the next boot delivers them again.
      bus.stop();
      await bus.idle();
      await outbox.flush();
      await store.close();
      // Last: the spans of the sessions that drained above are exported before the process ends.
      await tracingSdk?.shutdown();
      log.info('office scheduler stopped');
    },
  };
}
