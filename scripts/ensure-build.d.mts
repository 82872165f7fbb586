/** Types for ensure-build.mjs (plain JS so `prestart` and the bin run without a TypeScript loader). */
export function buildReason(): string | null;
export function ensureBuild(options?: { log?: (line: string) => void; force?: boolean }): Promise<void>;
export function ensureBenchBuild(): Promise<string>;
