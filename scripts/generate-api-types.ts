/** Writes dashboard/src/openapi.d.ts from the document a freshly started server serves. */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { API_TYPES_FILE, apiTypesOf, servedDocument } from '../test/contract/apiTypes.js';

writeFileSync(API_TYPES_FILE, await apiTypesOf(await servedDocument()));
console.log(`wrote ${fileURLToPath(API_TYPES_FILE)}`);
