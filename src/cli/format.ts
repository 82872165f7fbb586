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
