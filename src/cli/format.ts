/** Plain-text tables and times for the terminal. */

export function table(headers: string[], rows: string[][], maxWidth = 60): string {
  const cells = [headers, ...rows].map((row) => row.map((cell) => truncate(cell.replace(/\s+/g, ' '), maxWidth)));
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => row[i]?.length ?? 0)));
  return cells.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd()).join('\n');
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `2026-05-01 09:30:05Z` (UTC), or `-`. */
export function time(iso: string | null | undefined): string {
  return iso ? `${iso.slice(0, 19).replace('T', ' ')}Z` : '-';
}

/** `label  value` lines with the labels aligned; a row without a value is left out. */
export function fields(rows: Array<[string, string | null | undefined]>): string {
  const shown = rows.filter((row): row is [string, string] => row[1] !== null && row[1] !== undefined && row[1] !== '');
  const width = Math.max(...shown.map(([label]) => label.length));
  return shown.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`).join('\n');
}

/** `$0.0123`, or `-` when nothing was reported. */
export function usd(cost: number | null | undefined): string {
  return cost === null || cost === undefined ? '-' : `$${cost.toFixed(4)}`;
}
