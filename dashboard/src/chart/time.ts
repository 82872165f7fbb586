/** Time axes: ticks on round clock times, labelled in the viewer's time zone. */
const STEPS_MS = [60_000, 5 * 60_000, 15 * 60_000, 3_600_000, 3 * 3_600_000, 6 * 3_600_000, 86_400_000];

/** Round times between from and to, at the smallest step that gives at most `most` of them. */
export function clockTicks(from: number, to: number, most = 8): number[] {
  const step = STEPS_MS.find((ms) => (to - from) / ms <= most) ?? STEPS_MS.at(-1)!;
  // Local round times: an hour step lands on the viewer's whole hours, not UTC's (they differ in half-hour zones).
  const offset = new Date(from).getTimezoneOffset() * 60_000;
  const ticks: number[] = [];
  for (let at = Math.ceil((from - offset) / step) * step + offset; at <= to; at += step) ticks.push(at);
  return ticks;
}

/** 09:30 */
export function formatClock(at: number): string {
  const date = new Date(at);
  return `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
}

/** Nov 30 */
export function formatDay(at: number): string {
  return new Date(at).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

const MINUTE = 60_000;

/**
 * The range of the wakeups-per-minute chart at `now`: the `spanMs` (whole minutes) that end with
 * the minute `now` is in. Both ends are sent: were `to` left to the server's clock, a request that
 * reaches it in a later minute than `now` (a minute turning on the way, a browser clock behind the
 * server's) would span one minute more than asked, over the limit of a day of minutes (a 400).
 */
export function wakeupsRange(now: number, spanMs: number): { from: string; to: string } {
  const to = Math.floor(now / MINUTE) * MINUTE + MINUTE;
  return { from: new Date(to - spanMs).toISOString(), to: new Date(to).toISOString() };
}
