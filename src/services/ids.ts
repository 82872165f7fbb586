import { randomFillSync } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

/**
 * Entropy for ids and secrets, drawn 4 KiB at a time: one call into the system's random source
 * costs more than the id it feeds (uuid drew 16 bytes per id, 4.6% of a saturated scheduler's CPU).
 * Each byte is handed out once.
 */
const POOL = new Uint8Array(4096);
let poolOffset = POOL.length;

/** `length` fresh random bytes, a view of the pool: read them before the next call. */
function randomView(length: number): Uint8Array {
  if (length > POOL.length) return randomFillSync(new Uint8Array(length));
  if (poolOffset + length > POOL.length) {
    randomFillSync(POOL);
    poolOffset = 0;
  }
  poolOffset += length;
  return POOL.subarray(poolOffset - length, poolOffset);
}

/**
 * Order within a millisecond, as RFC 9562 (6.2, method 1) has it and as uuid does while it draws its
 * own bytes, which it then keeps to itself: a new millisecond seeds a 31-bit counter at random, each
 * id inside it adds one, a clock that went back counts on from the last id's time, and a counter
 * that wraps moves that time on by a millisecond.
 */
const order = { msecs: -Infinity, seq: 0 };

function nextUuidV7(): string {
  const random = randomView(16);
  const now = Date.now();
  if (now > order.msecs) {
    order.msecs = now;
    order.seq = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
  } else {
    order.seq = (order.seq + 1) | 0;
    if (order.seq === 0) order.msecs++;
  }
  return uuidv7({ random, msecs: order.msecs, seq: order.seq });
}

/**
 * Opaque ids with a readable prefix, so a log line says what kind of thing an id is. The 32 hex
 * digits are a UUIDv7: time first, and increasing within this process even inside one millisecond,
 * so ids sort in the order they were made. Lists break ties between rows of the same millisecond
 * by id, the same way on every backend (no reliance on SQLite's rowid).
 */
export const newId = (prefix: string) => `${prefix}_${nextUuidV7().replaceAll('-', '')}`;

/** URL-safe secrets for webhook triggers and run tokens. */
export const newSecret = (bytes = 24) => Buffer.from(randomView(bytes)).toString('base64url');
