/** Types for ensure-dashboard.mjs (plain JS so `prestart` runs without a TypeScript loader). */
export function buildReason(): string | null;
export function ensureDashboard(options?: { log?: (line: string) => void; force?: boolean }): Promise<boolean>;
