/**
 * The one way the API's TypeScript types are made: openapi-typescript over the document the server
 * serves. `npm run generate:api` writes them to dashboard/src/openapi.d.ts; test/contract checks that
 * the committed file is what the served document generates today.
 */
import openapiTS, { astToString } from 'openapi-typescript';
import { startHarness } from '../helpers/harness.js';

export const API_TYPES_FILE = new URL('../../dashboard/src/openapi.d.ts', import.meta.url);

const HEADER = '// Generated from /openapi.json by openapi-typescript (npm run generate:api). Do not edit by hand.\n';

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

export async function apiTypesOf(document: Record<string, unknown>): Promise<string> {
  // openapi-typescript resolves refs in place: give it a copy.
  const ast = await openapiTS(structuredClone(document) as never);
  return HEADER + astToString(ast);
}
