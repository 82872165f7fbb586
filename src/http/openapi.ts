/**
 * The OpenAPI document: what users generate clients from. Each route states its operation here
 * (`operation(...)`): an operationId that reads well in a generated SDK, a summary, a tag, its
 * success response and every error status it can answer, all from the zod schemas in
 * domain/responseSchemas.ts. The integration suite checks every response against this document.
 */
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { ROUTE_ACCESS, isRouteAccess } from '../domain/access.js';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { OpenAPIV3_1 } from 'openapi-types';
import { z } from 'zod';
import { ErrorEnvelope } from '../domain/responseSchemas.js';
import { PAGE_HEADERS } from './pages.js';

export const TAGS = {
  Workspaces: 'Workspaces: the top of the tree; each has a time zone and a default executor.',
  Projects: 'Projects group tasks and may carry a default executor.',
  Agents: 'Agent instances, their live actor, wake requests and continuation summaries.',
  Tasks: 'Tasks on the kanban board, and their comments.',
  Approvals: 'Approvals that a person resolves.',
  Budgets: 'Spending limits on a workspace, a project or an agent.',
  Routines: 'Routines, their triggers and their runs.',
  Webhooks: 'Webhook deliveries that fire a routine, authenticated with the trigger\'s own secret.',
  Wakeups: 'Wakeup requests, with an explanation of where each one is.',
  Runs: 'Runs: one session of an agent each.',
  Activity: 'The activity feed and the inbox.',
  System: 'Liveness, readiness and metrics, for probes and scrapers; no token needed.',
  Tokens: 'Named API tokens with a role (admin or member); admin only.',
  Sessions: 'Dashboard sign-in: a token exchanged for an HttpOnly session cookie, and sign-out.',
} as const;
export type Tag = keyof typeof TAGS;

const SUCCESS_DESCRIPTIONS: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted' };

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input (validation_error), naming the offending field.',
  401: 'Missing or invalid bearer token (or, for a webhook, a bad or missing signature).',
  403: 'A run token may not do this, a member may not (an admin\'s act, or any executor in a body), or an owner rule forbids it.',
  404: 'An id names nothing.',
  409: 'The request conflicts with the resource\'s state.',
  413: 'The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB).',
  414: 'A path parameter is longer than the router accepts (256 characters); such a path may also answer 404.',
  415: 'The body is not JSON.',
  421: 'The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS).',
  503: 'The database cannot be written (storage_unavailable); retry after the Retry-After header.',
  500: 'An internal fault (internal_error); the server log has the details. Bad input never answers 500.',
};

/**
 * Statuses any /api/office route may answer before its handler runs: the Host guard (421), the token
 * check (401), the run-token rules (403) and the router's own refusals of a malformed id (400); and
 * an internal fault (500), which any route may meet.
 */
const GUARDED = [400, 401, 403, 421, 500] as const;
/** Lists: only the guards (a filter that names nothing lists nothing). */
export const LIST_ERRORS = GUARDED;
/** Reads of one resource: the guards, and a 404 when the path's id names nothing. */
export const READ_ERRORS = [...GUARDED, 404] as const;
/** Writes: also a state conflict, a body that is too large or not JSON, and a database that cannot be written. */
export const WRITE_ERRORS = [...GUARDED, 404, 409, 413, 415, 503] as const;

type Security = Record<string, string[]>[];
type ResponseSpec = z.ZodType | { description: string; schema: z.ZodType | null; contentType?: string };

/** 204: no body. Its zod schema is `null`, which @fastify/swagger documents as no content. */
export const NO_CONTENT = { description: 'Done; no content.', schema: null } as const;

export interface OperationSpec {
  operationId: string;
  summary: string;
  tag: Tag;
  description?: string;
  /** Success statuses and their bodies, e.g. `{ 201: Workspace }`. */
  success: Record<number, ResponseSpec>;
  errors: readonly number[];
  /** The request body may be left out (a POST with no body is accepted). */
  optionalBody?: boolean;
  /** Who may call it; by default the API token or a run token. */
  security?: Security;
  /** A list that answers a page at a time: its 200 carries the next page's cursor in headers (pages.ts). */
  paginated?: boolean;
}

/** The documentation half of a route's schema; the route adds its own `params`, `querystring`, `body`. */
export function operation(spec: OperationSpec) {
  const response: Record<number, unknown> = {};
  for (const [status, body] of Object.entries(spec.success)) response[Number(status)] = responseOf(body, SUCCESS_DESCRIPTIONS[Number(status)] ?? 'Success');
  if (spec.paginated) response[200] = { ...response[200] as object, headers: PAGE_HEADERS };
  for (const status of spec.errors) {
    response[status] = { description: ERROR_DESCRIPTIONS[status] ?? 'Error', content: { 'application/json': { schema: ErrorEnvelope } } };
  }
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    tags: [spec.tag],
    ...(spec.description ? { description: spec.description } : {}),
    security: spec.security ?? OFFICE_SECURITY,
    ...(spec.optionalBody ? { [OPTIONAL_BODY]: true } : {}),
    response,
  };
}

/** An error response in the finished document, where the envelope is already the `Error` component. */
function errorResponse(status: number) {
  return { description: ERROR_DESCRIPTIONS[status] ?? 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
}

function responseOf(body: ResponseSpec, fallback: string) {
  if (body instanceof z.ZodType) return { description: body.description ?? fallback, content: { 'application/json': { schema: body } } };
  if (body.schema === null) return z.null().describe(body.description);
  return { description: body.description, content: { [body.contentType ?? 'application/json']: { schema: body.schema } } };
}

/** The API token (a person), a dashboard session cookie (a person who signed in) or, while its run lasts, a run's OFFICE_RUN_TOKEN (an agent). */
export const OFFICE_SECURITY: Security = [{ apiToken: [] }, { sessionCookie: [] }, { runToken: [] }];
/** Probes and scrapers need no token. */
export const NO_SECURITY: Security = [];
/** A webhook trigger's own secret, by its signing mode: none, bearer or hmac_sha256. */
export const WEBHOOK_SECURITY: Security = [{}, { webhookBearer: [] }, { webhookSignature: [] }];

const OPTIONAL_BODY = 'x-office-optional-body';
/** Who may call the operation: the route's declared access level (domain/access.ts), in the document as in the code. */
export const ACCESS_EXTENSION = 'x-office-access';

/** The zod provider's transform, plus the route's access level as an `x-office-access` extension of its operation. */
const transformWithAccess: NonNullable<FastifyDynamicSwaggerOptions['transform']> = (input) => {
  const transformed = keepResponseHeaders(input.schema, jsonSchemaTransform(input));
  const access = (input.route.config as { access?: unknown } | undefined)?.access;
  if (!isRouteAccess(access)) return transformed;
  return { ...transformed, schema: { ...transformed.schema, [ACCESS_EXTENSION]: { level: access, who: ROUTE_ACCESS[access] } } };
};

/** The zod provider rebuilds a response that has `content` without its `headers` (a paginated list's cursor headers): they are put back. */
function keepResponseHeaders(
  schema: { response?: unknown }, transformed: ReturnType<typeof jsonSchemaTransform>,
): ReturnType<typeof jsonSchemaTransform> {
  const declared = (schema.response ?? {}) as Record<string, { headers?: unknown }>;
  const response = (transformed.schema as { response?: Record<string, object> }).response;
  if (!response) return transformed;
  for (const [status, spec] of Object.entries(declared)) {
    if (spec?.headers && response[status]) response[status] = { ...response[status], headers: spec.headers };
  }
  return transformed;
}

export const swaggerOptions: FastifyDynamicSwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: {
      title: 'Office Scheduler',
      description: 'A durable, self-hosted scheduler that wakes autonomous AI agents.',
      version: '0.1.0',
    },
    servers: [{
      url: 'http://{host}:{port}',
      description: 'A local server (OFFICE_HOST, OFFICE_PORT); it binds 127.0.0.1:7700 by default.',
      variables: { host: { default: '127.0.0.1' }, port: { default: '7700' } },
    }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    components: {
      securitySchemes: {
        apiToken: { type: 'http', scheme: 'bearer', description: 'OFFICE_API_TOKEN. Required on /api/office/* when the server has one set.' },
        sessionCookie: { type: 'apiKey', in: 'cookie', name: 'office_session', description: 'The dashboard session cookie that POST /api/office/session sets. A write authenticated by it must be sent with Content-Type: application/json.' },
        runToken: { type: 'http', scheme: 'bearer', description: 'OFFICE_RUN_TOKEN, given to a run: while the run is running it may read its own workspace and make a few writes (comment, move its own tasks, create subtasks, wake its own agent).' },
        webhookBearer: { type: 'http', scheme: 'bearer', description: 'A webhook trigger with signing_mode `bearer`: Authorization: Bearer <trigger secret>.' },
        webhookSignature: { type: 'apiKey', in: 'header', name: 'X-Hub-Signature-256', description: 'A webhook trigger with signing_mode `hmac_sha256`: `sha256=<hex HMAC-SHA256(secret, raw body)>`.' },
      },
    },
  },
  transform: transformWithAccess,
  transformObject: (document) => finishDocument(jsonSchemaTransformObject(document) as OpenAPIV3_1.Document),
};

/**
 * What the route schemas cannot say: an optional request body, the router's answers to a path
 * parameter over its length limit (404 or 414: the route does not match), and only the components
 * that the operations use (the provider emits an input and an output copy of every named schema).
 */
function finishDocument(document: OpenAPIV3_1.Document): OpenAPIV3_1.Document {
  for (const path of Object.values(document.paths ?? {})) {
    for (const op of Object.values(path ?? {}) as Record<string, unknown>[]) {
      if (typeof op !== 'object' || op === null || !op.responses) continue;
      if (OPTIONAL_BODY in op) {
        delete op[OPTIONAL_BODY];
        if (op.requestBody) (op.requestBody as { required?: boolean }).required = false;
      }
      const hasPathParameter = ((op.parameters ?? []) as { in?: string }[]).some((p) => p.in === 'path');
      if (hasPathParameter) {
        const responses = op.responses as Record<string, unknown>;
        responses['404'] ??= errorResponse(404);
        responses['414'] = errorResponse(414);
      }
    }
  }
  const schemas = document.components?.schemas;
  if (schemas) {
    const used = referencedComponents(document);
    for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
  }
  return document;
}

function referencedComponents(document: OpenAPIV3_1.Document): Set<string> {
  const schemas = document.components?.schemas ?? {};
  const used = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== 'object') return;
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith('#/components/schemas/')) {
        const name = child.slice('#/components/schemas/'.length);
        if (!used.has(name)) {
          used.add(name);
          visit(schemas[name]);
        }
      } else visit(child);
    }
  };
  visit(document.paths);
  return used;
}
