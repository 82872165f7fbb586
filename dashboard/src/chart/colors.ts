/**
 * The charts' colours, one per outcome, matching the status badges' tones (styles.css). Hex, not
 * CSS variables: SVG presentation attributes do not resolve var().
 */
import type { WakeupOutcome } from '../../../src/domain/stats.js';
import type { RunStatus } from '../../../src/domain/types.js';

const GOOD = '#1f7a4d';
const BAD = '#b42318';
const WARN = '#c27803';
const INFO = '#2457d6';
const MUTED = '#9ca3af';

export const RUN_COLORS: Record<RunStatus, string> = {
  succeeded: GOOD, failed: BAD, interrupted: WARN, cancelled: '#6b7280', running: INFO, queued: MUTED,
};

export const OUTCOME_COLORS: Record<WakeupOutcome, string> = {
  finished: GOOD, skipped: MUTED, coalesced: '#7c5cc4', failed: BAD, cancelled: '#4b5563',
};

export const COST_COLOR = INFO;
