/**
 * The one way the committed API description is made: the document a freshly started server serves,
 * written to openapi.json at the repository root (so that a change to the contract shows in review),
 * and openapi-typescript's types over it, written to src/client/openapi.d.ts (the typed client's and
 * the dashboard's types). `npm run api:types` writes both; test/contract checks both are current.
 */
import openapiTS, { astToString } from 'openapi-typescript';
import { startHarness } from '../helpers/harness.js';

export const API_DOCUMENT_FILE = new URL('../../openapi.json', import.meta.url);
export const API_TYPES_FILE = new URL('../../src/client/openapi.d.ts', import.meta.url);

/** What to run when either file is stale. */
export const REGENERATE = 'npm run api:types';

const HEADER = `// Generated from /openapi.json by openapi-typescript (${REGENERATE}). Do not edit by hand.\n`;

/** The document, as a freshly started server serves it. */
export async function servedDocument(): Promise<Record<string, unknown>> {
  const h = await startHarness();
  try {
    const response = await h.api('GET', '/openapi.json');
    if (response.status !== 200) throw new Error(`GET /openapi.json answered ${response.status}`);
    return response.body;
  } finally {
    await h.stop();
  }
}

/** openapi.json's text: indented, so that a review shows which operation or field changed. */
export function documentText(document: Record<string, unknown>): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

export async function apiTypesOf(document: Record<string, unknown>): Promise<string> {
  // openapi-typescript resolves refs in place: give it a copy.
  const ast = await openapiTS(structuredClone(document) as never);
  return HEADER + astToString(ast);
}
