/**
 * axe-core in the page under test: its source is injected into the page, run on the whole
 * document, and its violations are turned into lines a failing test prints (the rule, where, and
 * what to fix), so a failure says what to change without a second run.
 */
import axe from 'axe-core';
import type { Page } from 'playwright-core';

/** One offending element: the rule it breaks, its CSS path, and axe's summary of how to fix it. */
export interface AxeFinding {
  rule: string;
  impact: string | null;
  target: string;
  summary: string;
}

type AxeWindow = { axe?: typeof axe; document: axe.ElementContext };

/** Every node that breaks an axe rule on the page as it is now. */
export async function axeFindings(page: Page): Promise<AxeFinding[]> {
  const injected = await page.evaluate(() => typeof (globalThis as unknown as AxeWindow).axe?.run === 'function');
  if (!injected) await page.addScriptTag({ content: axe.source });
  const violations = await page.evaluate(async () => (await (globalThis as unknown as Required<AxeWindow>).axe.run((globalThis as unknown as AxeWindow).document, { resultTypes: ['violations'] })).violations
    .map(({ id, impact, nodes }) => ({ id, impact: impact ?? null, nodes: nodes.map((node) => ({ target: node.target.join(' '), summary: node.failureSummary ?? '' })) })));
  return violations.flatMap(({ id, impact, nodes }) => nodes.map(({ target, summary }) => ({ rule: id, impact, target, summary })));
}

/** The findings as lines to print: `where: rule (impact) at target: summary`. */
export function describeFindings(where: string, findings: AxeFinding[]): string[] {
  return findings.map((f) => `${where}: ${f.rule} (${f.impact ?? 'no impact given'}) at ${f.target}: ${f.summary.replace(/\s+/g, ' ').trim()}`);
}
