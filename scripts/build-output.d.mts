/** Types for build-output.mjs (plain JS, shared by the build scripts that run without a TypeScript loader). */
export function newestMtime(path: string): number;
export function staleReason(options: { name: string; marker: string; sources: string[] }): string | null;
export function buildIntoPlace(options: { output: string; marker: string; build: (temp: string) => Promise<unknown>; isCurrent: () => boolean }): Promise<void>;
