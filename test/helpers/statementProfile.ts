/** What the statement-profile tests of both backends share: a unit of two inserts, and counting by statement. */
import type { StatementProfile } from '../../src/persistence/shared/statementProfile.js';
import type { Store } from '../../src/persistence/store.js';

let seq = 0;

/** One unit of work: two workspace inserts, one statement each. */
export function twoInserts(store: Store): Promise<void> {
  return store.transaction(async (tx) => {
    for (let i = 0; i < 2; i++) {
      const id = `ws_${++seq}`;
      await tx.workspaces.insert({ id, name: id, created_at: 1, updated_at: 1 } as never);
    }
  });
}

/** How many times the statements whose text starts with `prefix` ran. */
export function countOf(profile: StatementProfile, prefix: string): number {
  return profile.statements().filter((stat) => stat.text.startsWith(prefix)).reduce((sum, stat) => sum + stat.count, 0);
}
