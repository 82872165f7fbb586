/**
 * fast-check arbitraries for requests against every route: bodies built from the route's own JSON
 * schema (the one /openapi.json is generated from) and then mutated, random JSON, malformed JSON,
 * deep JSON, oversized bodies, wrong content types, unicode names, huge cron expressions, invalid
 * time zones, bad query strings, bad ids, and webhook deliveries with bad signatures.
 *
 * Ids are symbolic (`{ $id: prefix, n }`) and resolved against the ids the target has seen when
 * the request is sent, so a seed replays the same run.
 */
import fc from 'fast-check';
import type { JsonSchema, Route } from './target.js';

export interface IdRef {
  $id: string;
  n: number;
}

export type BodyKind = 'none' | 'clean' | 'schema' | 'mutated' | 'random-json' | 'malformed' | 'deep' | 'oversized' | 'empty' | 'wrong-type' | 'huge-field';

export interface FuzzPlan {
  route: Route;
  method: string;
  params: Record<string, unknown>;
  query: [string, unknown][] | string | null;
  bodyKind: BodyKind;
  body: unknown;
  contentType: string | null;
  /** For deep and oversized bodies: generated when sent, not kept in the plan. */
  size: number;
  headers: Record<string, unknown>;
  /** Webhook signature: none, garbage, a wrong secret, or the right one. */
  signature: 'none' | 'garbage' | 'wrong-secret' | 'right' | 'bearer-wrong' | 'bearer-right';
  viaHttp: boolean;
}

const UNICODE = fc.string({ unit: 'grapheme', maxLength: 40 });
const NASTY = fc.constantFrom(
  '', ' ', '\u0000', 'null', 'undefined', '../../etc/passwd', '%00', '%', '%zz', '😀'.repeat(50), 'ﷺ', '\u202e\u202d', 'Robert\'); DROP TABLE tasks;--',
  '<script>alert(1)</script>', 'a'.repeat(201), 'x'.repeat(5000), '{{date}}', '{{ nope }}', '__proto__', 'constructor', '\ud800', 'ｗｓ＿', '0', '-1', '1e309',
);
export const ANY_STRING = fc.oneof({ weight: 4, arbitrary: fc.string({ maxLength: 30 }) }, { weight: 3, arbitrary: UNICODE }, { weight: 3, arbitrary: NASTY });

const CRON_FIELDS = fc.constantFrom('*', '*/5', '0', '59', '60', '1-5', '5-1', '1,2,3', 'L', 'W', '?', '#', 'MON-FRI', 'JAN', '*/0', '0/1', '-1', '99999999999', 'a', '');
export const CRON = fc.oneof(
  fc.constantFrom('* * * * *', '*/5 * * * *', '0 9 * * 1-5', '*/2 * * * * *', '0 0 31 2 *', '0 0 30 2 *', '@daily', '* * * * * * *', '', ' ', '61 * * * *', '0 0 * * 8'),
  fc.array(CRON_FIELDS, { minLength: 1, maxLength: 8 }).map((fields) => fields.join(' ')),
  // Huge: long lists within and beyond the 256-character limit, and far beyond it.
  fc.integer({ min: 1, max: 400 }).map((n) => `${Array.from({ length: n }, (_, i) => i % 60).join(',')} * * * *`),
  fc.integer({ min: 1, max: 200 }).map((n) => `${'0-59/1,'.repeat(n)}0 * * * * *`),
  fc.integer({ min: 10_000, max: 200_000 }).map((n) => '*'.repeat(n)),
  ANY_STRING,
);
export const TIME_ZONE = fc.oneof(
  fc.constantFrom('UTC', 'Europe/London', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu'),
  fc.constantFrom('Mars/Olympus_Mons', 'UTC+25', 'utc ', ' UTC', 'Etc/GMT+99', 'Europe/Londonn', '', 'local', 'Z', 'A'.repeat(101), '../../zoneinfo', 'America/New York'),
  ANY_STRING,
);

const PREFIX_BY_SEGMENT: Record<string, string> = {
  workspaces: 'ws', projects: 'prj', agents: 'agt', tasks: 'tsk', approvals: 'apr', wakeups: 'wk', runs: 'run',
  routines: 'rtn', 'routine-triggers': 'trg', budgets: 'bdg', comments: 'cmt', inbox: 'inb',
};

/** Which kind of id a field probably holds, from its name. */
export function prefixForField(name: string): string {
  if (name === 'workspace_id') return 'ws';
  if (name === 'project_id') return 'prj';
  if (/agent|assignee|reviewers|author_id|owner_id/.test(name)) return 'agt';
  if (/task_id|parent_id|blocked_by|^task$/.test(name)) return 'tsk';
  if (name === 'routine_id') return 'rtn';
  if (name === 'wakeup_id') return 'wk';
  if (name === 'scope_id') return '*';
  return '*';
}

function prefixForParam(path: string, param: string): string {
  const segments = path.split('/');
  const at = segments.indexOf(`:${param}`);
  return PREFIX_BY_SEGMENT[segments[at - 1] ?? ''] ?? '*';
}

/** Mostly the first ids of a kind (the seeded world, all in one workspace), sometimes any. */
const INDEX = fc.oneof({ weight: 3, arbitrary: fc.nat(2) }, { weight: 1, arbitrary: fc.nat() });
const idRef = (prefix: string): fc.Arbitrary<IdRef | string> => fc.oneof(
  { weight: 7, arbitrary: INDEX.map((n) => ({ $id: prefix, n })) },
  { weight: 1, arbitrary: fc.nat().map((n) => ({ $id: '*', n })) },
  { weight: 2, arbitrary: ANY_STRING },
);

/**
 * An arbitrary value for `schema`. `clean` values fit it (ids point at real rows, so they reach
 * the services); otherwise each field is sometimes out of range, of another kind, or nasty.
 */
export function fromSchema(schema: JsonSchema | undefined, name: string, depth = 0, clean = false): fc.Arbitrary<unknown> {
  if (!schema || depth > 5) return clean ? fc.constant(null) : fc.jsonValue({ maxDepth: 2 });
  if (schema.nullable) {
    const { nullable: _ignored, ...rest } = schema;
    return fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 5, arbitrary: fromSchema(rest, name, depth, clean) });
  }
  const dirty = <T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<unknown>, weight = 1) =>
    clean ? good : fc.oneof({ weight: 9 - weight, arbitrary: good as fc.Arbitrary<unknown> }, { weight, arbitrary: bad });
  if (Array.isArray(schema.enum)) return dirty(fc.constantFrom(...schema.enum), ANY_STRING);
  if (schema.const !== undefined) return fc.constant(schema.const);
  const options = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(options)) return fc.oneof(...options.map((option: JsonSchema) => fromSchema(option, name, depth + 1, clean)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set<string>(schema.required ?? []);
      if (Object.keys(properties).length === 0) {
        const values = typeof schema.additionalProperties === 'object' ? fromSchema(schema.additionalProperties, name, depth + 1, clean) : fc.jsonValue({ maxDepth: 2 });
        return fc.dictionary(clean ? fc.stringMatching(/^[A-Z][A-Z0-9_]{0,8}$/) : fc.string({ maxLength: 10 }), values, { maxKeys: clean ? 2 : 4 });
      }
      const fields = Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, fromSchema(value, key, depth + 1, clean)]));
      return fc.record(fields, { requiredKeys: [...required].filter((key) => key in fields) });
    }
    case 'array':
      return fc.array(fromSchema(schema.items, name, depth + 1, clean), { maxLength: Math.min(schema.maxItems ?? 5, clean ? 2 : 5) });
    case 'integer': {
      const min = Math.max(schema.minimum ?? -1e6, -1e6);
      return dirty(fc.integer({ min, max: Math.max(min, Math.min(schema.maximum ?? 1e6, 1e6)) }), fc.constantFrom(-1, 0, 2 ** 31, 2 ** 53, -(2 ** 53), 1.5, 1e308), 2);
    }
    case 'number':
      return dirty(fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true }), fc.constantFrom(-1, 0, 1e308, -1e308, 5e-324), 2);
    case 'boolean':
      return fc.boolean();
    case 'string':
      return stringFor(name, schema, clean);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

const GOOD_CRON = fc.constantFrom('*/5 * * * *', '0 9 * * 1-5', '30 2 * * *', '*/10 * * * * *', '0 0 1 * *', '15 14 1 * *', '0 22 * * 1-5');
const GOOD_ZONE = fc.constantFrom('UTC', 'Europe/London', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe');

function stringFor(name: string, schema: JsonSchema, clean: boolean): fc.Arbitrary<unknown> {
  if (name === 'id' || name.endsWith('_id') || name === 'blocked_by' || name === 'reviewers') {
    return clean ? INDEX.map((n) => ({ $id: prefixForField(name), n })) : idRef(prefixForField(name));
  }
  if (name === 'cron_expression') return clean ? GOOD_CRON : CRON;
  if (name === 'timezone') return clean ? GOOD_ZONE : TIME_ZONE;
  if (name === 'url' || schema.format === 'uri') return clean ? fc.constant('http://127.0.0.1:9/fuzz') : fc.constantFrom('http://127.0.0.1:9/fuzz', 'https://127.0.0.1:9/x', 'ftp://x', 'not a url', '');
  const max = Math.min(schema.maxLength ?? 40, 40);
  const min = Math.min(schema.minLength ?? 0, max);
  if (typeof schema.pattern === 'string') return clean ? fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= min && s.length <= max) : ANY_STRING;
  if (name === 'name' || name === 'title' || name === 'body' || name === 'description' || name === 'reason') {
    const names = UNICODE.filter((s) => s.trim().length >= Math.max(1, min) && s.length <= (schema.maxLength ?? 1000));
    return clean ? names : fc.oneof({ weight: 5, arbitrary: names }, { weight: 2, arbitrary: ANY_STRING });
  }
  const plain = fc.string({ minLength: min, maxLength: max }).filter((s) => s.trim().length >= min);
  return clean ? plain : fc.oneof({ weight: 6, arbitrary: plain }, { weight: 2, arbitrary: ANY_STRING });
}

/** Drops, adds or breaks a field, or swaps the whole body for something else. */
const mutation = fc.record({
  op: fc.constantFrom('drop', 'add', 'retype', 'null-all', 'array', 'scalar'),
  key: fc.nat(),
  extra: fc.string({ maxLength: 12 }),
  value: fc.jsonValue({ maxDepth: 2 }),
});

export function mutate(body: unknown, m: { op: string; key: number; extra: string; value: unknown }): unknown {
  if (m.op === 'array') return [body];
  if (m.op === 'scalar') return m.value;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return m.value;
  const copy = { ...(body as Record<string, unknown>) };
  const keys = Object.keys(copy);
  const key = keys.length ? keys[m.key % keys.length]! : m.extra;
  if (m.op === 'drop') delete copy[key];
  else if (m.op === 'add') copy[m.extra || 'unexpected'] = m.value;
  else if (m.op === 'retype') copy[key] = typeof copy[key] === 'string' ? 12345 : 'not-the-right-type';
  else for (const k of keys) copy[k] = null;
  return copy;
}

const BAD_CONTENT_TYPES = fc.constantFrom(
  'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/jsonx',
  'application/json; charset=utf-16', 'application/json; charset=latin1', 'APPLICATION/JSON', '*/*', 'application/octet-stream', '',
);
const MALFORMED = fc.oneof(
  fc.constantFrom('{', '}', '{"a":', '{"a" 1}', "{'a': 1}", '[1,2', 'nul', 'tru', '{"a":1,}', '\u0000', '{"__proto__": {"x": 1}}', '{"a":1}{"b":2}', '1e999', '"\\ud800"', '\ufeff{}'),
  fc.string({ maxLength: 200 }),
);

export function planArbitrary(routes: Route[]): fc.Arbitrary<FuzzPlan> {
  return fc.constantFrom(...routes).chain((route) => {
    const params = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
    const cleanParams = fc.record(Object.fromEntries(params.map((p) => [p,
      p === 'public_id' ? fc.nat().map((n) => ({ $id: 'webhook', n })) : INDEX.map((n) => ({ $id: prefixForParam(route.path, p), n })),
    ])));
    const paramArb = fc.record(Object.fromEntries(params.map((p) => [p,
      p === 'public_id'
        ? fc.oneof({ weight: 8, arbitrary: fc.nat().map((n) => ({ $id: 'webhook', n })) }, { weight: 2, arbitrary: ANY_STRING })
        : idRef(prefixForParam(route.path, p)),
    ])));
    const wildcard = route.path.endsWith('*');
    const queryArb = route.querySchema
      ? fc.oneof(
        { weight: 8, arbitrary: (fromSchema(route.querySchema, 'query') as fc.Arbitrary<Record<string, unknown>>).map((q) => Object.entries(q ?? {})) },
        { weight: 1, arbitrary: fc.array(fc.tuple(fc.string({ maxLength: 10 }), ANY_STRING), { maxLength: 3 }) },
        { weight: 1, arbitrary: fc.constantFrom('%', '%zz', 'a=%E0%A4%A', 'limit=1&limit=2', 'workspace_id[]=x', '=&=&', '?'.repeat(10), `a=${'b'.repeat(9000)}`) },
      )
      : fc.oneof({ weight: 9, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.array(fc.tuple(fc.string({ maxLength: 10 }), ANY_STRING), { maxLength: 2 }) });
    const hasBody = route.method === 'POST' || route.method === 'PATCH' || route.method === 'PUT';
    const bodyKind: fc.Arbitrary<BodyKind> = hasBody
      ? fc.constantFrom(...(route.bodySchema ? ['clean', 'clean', 'clean', 'clean', 'clean', 'schema', 'schema', 'schema', 'schema', 'mutated', 'mutated', 'mutated'] as const : ['random-json', 'empty'] as const),
        'random-json', 'random-json', 'malformed', 'deep', 'empty', 'wrong-type', 'wrong-type', 'huge-field', 'oversized')
      : fc.constantFrom('none', 'none', 'none', 'none', 'none', 'none', 'none', 'none', 'random-json', 'malformed');
    return fc.record({
      route: fc.constant(route),
      method: fc.oneof({ weight: 19, arbitrary: fc.constant(wildcard ? 'GET' : route.method) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS', 'HEAD') }),
      cleanParams,
      params: wildcard
        ? fc.record({ '*': fc.oneof(fc.constantFrom('', 'index.html', 'assets/x.js', 'api/office/nope', '../package.json', '%2e%2e/%2e%2e/etc/passwd', 'a'.repeat(3000)), ANY_STRING) })
        : paramArb,
      query: queryArb,
      bodyKind,
      body: route.bodySchema ? fromSchema(route.bodySchema, 'body') : fc.jsonValue({ maxDepth: 3 }),
      cleanBody: route.bodySchema ? fromSchema(route.bodySchema, 'body', 0, true) : fc.constant(null),
      mutation,
      randomJson: fc.jsonValue({ maxDepth: 4 }),
      malformed: MALFORMED,
      contentType: BAD_CONTENT_TYPES,
      size: fc.integer({ min: 65, max: 20_000 }),
      headers: fc.record({
        authorization: fc.oneof({ weight: 17, arbitrary: fc.constant(undefined) }, { weight: 3, arbitrary: fc.constantFrom('Bearer nope', 'Bearer ', 'Basic abc', 'bearer x y', `Bearer ${'a'.repeat(5000)}`) }),
        'x-delivery-id': fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('d1', 'd2', 'd3', 'x'.repeat(500)) }),
      }, { requiredKeys: [] }),
      signature: fc.constantFrom('none', 'garbage', 'wrong-secret', 'wrong-secret', 'right', 'bearer-wrong', 'bearer-right'),
      viaHttp: fc.nat(19).map((n) => n === 0),
    }).map((r) => {
      const kind = r.bodyKind;
      const body = kind === 'clean' ? r.cleanBody : kind === 'schema' ? r.body : kind === 'mutated' ? mutate(r.body, r.mutation) : kind === 'random-json' ? r.randomJson
        : kind === 'malformed' ? r.malformed : r.body;
      // A clean request is well-formed throughout, so it gets past validation into the services.
      const isClean = kind === 'clean' && !wildcard;
      return {
        route: r.route, method: isClean ? route.method : r.method, params: isClean ? r.cleanParams : r.params, query: r.query, bodyKind: kind, body,
        contentType: kind === 'wrong-type' ? r.contentType : null, size: r.size,
        headers: isClean ? { ...r.headers, authorization: undefined } : r.headers, signature: r.signature, viaHttp: r.viaHttp,
      } satisfies FuzzPlan;
    });
  });
}
