/**
 * The contract check: every response an integration test receives from an Office Scheduler server
 * is checked against the operation and status that /openapi.json declares for it. An undeclared
 * status, a body that does not match its schema (a missing field, an undeclared one, a wrong
 * type or enum value) or a declared body that is missing fails the request, and so the test that
 * sent it: every integration test checks the document as a side effect.
 *
 * It wraps the global fetch, which the harness's `request` (and so the API client) and the tests'
 * own raw calls all use. Only origins registered as office servers are checked (the harness
 * registers each server it starts or calls), so calls to a test's fake agents pass untouched.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

interface OperationEntry {
  pointer: string;
  responses: Record<string, { content?: Record<string, unknown> }>;
}
interface PathEntry {
  template: string;
  pattern: RegExp;
  /** Literal segments first: `/tasks/{id}` must not shadow a literal route of the same depth. */
  literalSegments: number;
  methods: Map<string, OperationEntry>;
}

const DOCUMENT_ID = 'office-openapi.json';
const officeOrigins = new Set<string>();
const originalFetch = globalThis.fetch;
let contract: Promise<Contract> | null = null;

export class ContractViolation extends Error {
  override name = 'ContractViolation';
}

/** Marks a server's base URL (e.g. `http://127.0.0.1:41234`) as one whose answers are checked. */
export function registerOfficeServer(baseUrl: string): void {
  officeOrigins.add(new URL(baseUrl).origin);
}

let installed = false;
/** Wraps globalThis.fetch once per process. */
export function installContractCheck(): void {
  if (installed) return;
  installed = true;
  globalThis.fetch = async function checkedFetch(input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> {
    const response = await originalFetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!officeOrigins.has(url.origin)) return response;
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    await checkResponse(url, method, response);
    return response;
  };
}

async function checkResponse(url: URL, method: string, response: Response): Promise<void> {
  const contentType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
  // The event stream never ends; it is not in the document (system.ts says why).
  if (contentType === 'text/event-stream') return;
  // Loaded once per test process; a failed load (a server stopping mid-call) is tried again next time.
  const c = await (contract ??= loadContract(url.origin).catch((error: unknown) => {
    contract = null;
    throw error;
  }));
  const path = c.match(url.pathname);
  if (!path) return; // Not an API route: the dashboard's files, /openapi.json itself.
  const where = `${method} ${url.pathname} -> ${response.status}`;
  const op = path.methods.get(method.toLowerCase());
  const text = await response.clone().text();
  if (!op) {
    // A method the path does not have: the router's 404, in the error envelope.
    if (response.status >= 400) return c.validate(`#/components/schemas/Error`, parse(text, where), where);
    throw new ContractViolation(`${where}: ${path.template} documents no ${method} operation`);
  }
  const declared = op.responses[String(response.status)];
  if (!declared) {
    throw new ContractViolation(`${where}: status ${response.status} is not declared for this operation (declared: ${Object.keys(op.responses).join(', ')}); body: ${text.slice(0, 500)}`);
  }
  if (!declared.content) {
    if (text !== '') throw new ContractViolation(`${where}: the document declares no body, but one came: ${text.slice(0, 500)}`);
    return;
  }
  const mediaType = contentType in declared.content ? contentType : undefined;
  if (!mediaType) throw new ContractViolation(`${where}: content type '${contentType}' is not declared (declared: ${Object.keys(declared.content).join(', ')})`);
  const pointer = `${op.pointer}/responses/${response.status}/content/${escape(mediaType)}/schema`;
  c.validate(pointer, mediaType === 'application/json' ? parse(text, where) : text, where);
}

function parse(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ContractViolation(`${where}: the body is not JSON: ${text.slice(0, 500)}`);
  }
}

/** One path segment of a JSON pointer inside a URI fragment: pointer-escaped, then percent-encoded (`{id}`). */
function escape(segment: string): string {
  return encodeURIComponent(segment.replaceAll('~', '~0').replaceAll('/', '~1'));
}

interface Contract {
  match(pathname: string): PathEntry | undefined;
  validate(pointer: string, body: unknown, where: string): void;
}

async function loadContract(origin: string): Promise<Contract> {
  const response = await originalFetch(`${origin}/openapi.json`);
  if (response.status !== 200) throw new ContractViolation(`GET ${origin}/openapi.json answered ${response.status}`);
  const document = await response.json() as { paths: Record<string, Record<string, { responses: OperationEntry['responses'] }>> };

  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  ajv.addSchema(document as object, DOCUMENT_ID);

  const paths: PathEntry[] = Object.entries(document.paths).map(([template, item]) => ({
    template,
    pattern: new RegExp(`^${template.split('/').map((s) => (s.startsWith('{') ? '[^/]+' : s.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))).join('/')}$`),
    literalSegments: template.split('/').filter((s) => s && !s.startsWith('{')).length,
    methods: new Map(Object.entries(item).map(([method, op]) => [method, { pointer: `#/paths/${escape(template)}/${method}`, responses: op.responses }])),
  })).sort((a, b) => b.literalSegments - a.literalSegments);

  const validators = new Map<string, ValidateFunction>();
  return {
    match: (pathname) => paths.find((p) => p.pattern.test(pathname)),
    validate(pointer, body, where) {
      const validator = validators.get(pointer) ?? ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` });
      validators.set(pointer, validator);
      if (!validator(body)) {
        const problems = (validator.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
        throw new ContractViolation(`${where}: the body does not match the document (${pointer}):\n  ${problems.slice(0, 10).join('\n  ')}\nbody: ${JSON.stringify(body).slice(0, 1500)}`);
      }
    },
  };
}
