/** `npm run api:types`: writes openapi.json and src/client/openapi.d.ts from the document a freshly started server serves. */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { API_DOCUMENT_FILE, API_TYPES_FILE, apiTypesOf, documentText, servedDocument } from '../test/contract/apiTypes.js';

const document = await servedDocument();
writeFileSync(API_DOCUMENT_FILE, documentText(document));
writeFileSync(API_TYPES_FILE, await apiTypesOf(document));
console.log(`wrote ${fileURLToPath(API_DOCUMENT_FILE)} and ${fileURLToPath(API_TYPES_FILE)}`);
