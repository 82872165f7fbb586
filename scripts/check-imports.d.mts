/** Types for check-imports.mjs (plain JS so that it runs without a TypeScript loader). */
export interface Layer { name: string; rank: number; paths: string[] }
export interface Violation { from: string; line: number; specifier: string; rule: string }
export interface CheckResult { violations: Violation[]; stale: string[] }
export const LAYERS: Layer[];
export const ALLOWED: Map<string, string>;
export function layerOf(path: string): Layer | null;
export function importsOf(text: string): { specifier: string; line: number }[];
export function violationOf(from: string, specifier: string, to: string | null): string | null;
export function checkImports(srcDir: string, allowed?: Map<string, string>): CheckResult;
export function formatReport(result: CheckResult): string;
