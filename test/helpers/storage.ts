/** What the storage-failure tests share: reading one /metrics value, and an agent whose run ends when the test says. */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixtureAgent, seedAgent, type Harness } from './harness.js';

/** One unlabelled sample from /metrics; undefined when the metric is absent. */
export async function metricValue(baseUrl: string, name: string): Promise<number | undefined> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

/**
 * A worker on wait-for-release.mjs, woken once. Its session records itself in `<dir>/record` and
 * ends when `release()` is called. `dir` must not be on a volume the test fills.
 */
export async function heldRun(h: Harness, dir: string) {
  const recordDir = join(dir, 'record');
  const releaseFile = join(dir, 'release');
  mkdirSync(recordDir, { recursive: true });
  const { agentId } = await seedAgent(h, {
    executor: fixtureAgent('wait-for-release.mjs', { FIXTURE_RELEASE_FILE: releaseFile, FIXTURE_RECORD_DIR: recordDir }),
  });
  const wake = await h.api('POST', `/api/office/agents/${agentId}/wake`, { reason: 'work through the outage' });
  if (wake.status !== 202) throw new Error(`wake failed: ${wake.status} ${JSON.stringify(wake.body)}`);
  const wakeupId = wake.body.wakeup.id as string;
  return {
    agentId,
    wakeupId,
    /** Sessions started so far (each records one file). */
    sessions: () => (existsSync(recordDir) ? readdirSync(recordDir).length : 0),
    release: () => writeFileSync(releaseFile, 'go'),
  };
}
