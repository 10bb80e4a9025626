#!/usr/bin/env node
// Apollo Federation end-to-end check for the compliance subgraph.
//
// Usage: node federation.mjs <subgraph-url> <api-key> [query]
//
//  1. Fetches the subgraph SDL with `{ _service { sdl } }` (Authorization: Bearer <api-key>).
//  2. Composes it alone as subgraph "compliance" with @apollo/composition; every
//     composition error is printed and the script exits 1 if there are any.
//  3. Prints the entity types (types carrying @key) declared by the SDL.
//  4. Starts an ApolloGateway on the composed supergraph inside an ApolloServer
//     (standalone, 127.0.0.1, free port), forwarding the API key to the subgraph,
//     sends [query] (default `{ __typename }`) through it, and checks that the
//     response has `data` and no `errors`.
//
// Exit status: 0 success, 1 any failure (fetch, parse, composition, gateway, query), 2 usage.
// Nothing is sent anywhere but the subgraph URL and the local gateway: Apollo's
// gateway telemetry is disabled and Apollo usage/schema reporting is turned off.

// Must be set before ApolloGateway is constructed: otherwise @apollo/gateway 2.x
// runs cloud resource detectors (metadata endpoints) and exports metrics to Apollo.
process.env.APOLLO_TELEMETRY_DISABLED = 'true';
for (const name of ['APOLLO_KEY', 'APOLLO_GRAPH_REF', 'APOLLO_GRAPH_ID', 'APOLLO_GRAPH_VARIANT']) {
  delete process.env[name];
}

import { parse, Kind, print } from 'graphql';
import { composeServices } from '@apollo/composition';
import { ApolloGateway, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import {
  ApolloServerPluginLandingPageDisabled,
  ApolloServerPluginSchemaReportingDisabled,
  ApolloServerPluginUsageReportingDisabled,
} from '@apollo/server/plugin/disabled';

const SUBGRAPH_NAME = 'compliance';
const SDL_QUERY = '{ _service { sdl } }';
const DEFAULT_QUERY = '{ __typename }';
const REQUEST_TIMEOUT_MS = Number(process.env.FEDERATION_E2E_REQUEST_TIMEOUT_MS || 15000);
const OVERALL_TIMEOUT_MS = Number(process.env.FEDERATION_E2E_TIMEOUT_MS || 120000);

class CheckFailure extends Error {}

function usage(message) {
  if (message) console.error(`federation: ${message}`);
  console.error('usage: node federation.mjs <subgraph-url> <api-key> [query]');
  console.error(`  query defaults to ${JSON.stringify(DEFAULT_QUERY)}`);
  process.exit(2);
}

function fail(message) {
  throw new CheckFailure(message);
}

function describeError(err) {
  if (err instanceof CheckFailure) return err.message;
  if (err && err.name === 'TimeoutError') return `request timed out after ${REQUEST_TIMEOUT_MS} ms`;
  const cause = err && err.cause ? ` (cause: ${err.cause.code || err.cause.message || err.cause})` : '';
  return `${(err && err.stack) || err}${cause}`;
}

async function postGraphQL(url, body, headers = {}) {
  let res;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/graphql-response+json, application/json;q=0.9',
        ...headers,
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (err) {
    const cause = err && err.cause ? ` (${err.cause.code || err.cause.message || err.cause})` : '';
    const what = err && err.name === 'TimeoutError' ? `timed out after ${REQUEST_TIMEOUT_MS} ms` : `${(err && err.message) || err}${cause}`;
    fail(`POST ${url} failed: ${what}`);
  }
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    fail(`POST ${url}: HTTP ${res.status}, response is not JSON: ${text.slice(0, 500)}`);
  }
  return { status: res.status, json };
}

function formatGraphQLErrors(errors) {
  return errors
    .map((e) => {
      const code = e && e.extensions && e.extensions.code ? `[${e.extensions.code}] ` : '';
      const path = e && e.path ? ` (path: ${e.path.join('.')})` : '';
      return `  - ${code}${(e && e.message) || JSON.stringify(e)}${path}`;
    })
    .join('\n');
}

async function fetchSdl(subgraphUrl, apiKey) {
  const { status, json } = await postGraphQL(
    subgraphUrl,
    { query: SDL_QUERY },
    { Authorization: `Bearer ${apiKey}` },
  );
  if (Array.isArray(json.errors) && json.errors.length > 0) {
    fail(`subgraph returned errors for ${SDL_QUERY} (HTTP ${status}):\n${formatGraphQLErrors(json.errors)}`);
  }
  if (status < 200 || status >= 300) {
    fail(`subgraph answered HTTP ${status} for ${SDL_QUERY}: ${JSON.stringify(json).slice(0, 500)}`);
  }
  const sdl = json && json.data && json.data._service && json.data._service.sdl;
  if (typeof sdl !== 'string' || sdl.trim() === '') {
    fail(`subgraph response has no _service.sdl: ${JSON.stringify(json).slice(0, 500)}`);
  }
  return sdl;
}

// Names under which the federation @key directive may appear in this SDL:
// `key` when imported (or an alias given with {name: "@key", as: "@x"}),
// `federation__key` when not imported.
function keyDirectiveNames(doc) {
  const names = new Set(['federation__key']);
  let imported = false;
  for (const def of doc.definitions) {
    if (def.kind !== Kind.SCHEMA_DEFINITION && def.kind !== Kind.SCHEMA_EXTENSION) continue;
    for (const dir of def.directives || []) {
      if (dir.name.value !== 'link') continue;
      const urlArg = (dir.arguments || []).find((a) => a.name.value === 'url');
      if (!urlArg || urlArg.value.kind !== Kind.STRING || !urlArg.value.value.includes('specs.apollo.dev/federation/')) continue;
      const asArg = (dir.arguments || []).find((a) => a.name.value === 'as');
      if (asArg && asArg.value.kind === Kind.STRING) names.add(`${asArg.value.value}__key`);
      const importArg = (dir.arguments || []).find((a) => a.name.value === 'import');
      if (!importArg || importArg.value.kind !== Kind.LIST) continue;
      for (const item of importArg.value.values) {
        if (item.kind === Kind.STRING && item.value === '@key') {
          names.add('key');
          imported = true;
        } else if (item.kind === Kind.OBJECT) {
          const field = (n) => item.fields.find((f) => f.name.value === n);
          const name = field('name');
          const as = field('as');
          if (name && name.value.kind === Kind.STRING && name.value.value === '@key') {
            names.add(as && as.value.kind === Kind.STRING ? as.value.value.replace(/^@/, '') : 'key');
            imported = true;
          }
        }
      }
    }
  }
  // Federation 1 style SDL (no @link): plain @key.
  if (!imported) names.add('key');
  return names;
}

function entityTypes(doc) {
  const keyNames = keyDirectiveNames(doc);
  const entities = new Map();
  const kinds = new Set([
    Kind.OBJECT_TYPE_DEFINITION,
    Kind.OBJECT_TYPE_EXTENSION,
    Kind.INTERFACE_TYPE_DEFINITION,
    Kind.INTERFACE_TYPE_EXTENSION,
  ]);
  for (const def of doc.definitions) {
    if (!kinds.has(def.kind)) continue;
    for (const dir of def.directives || []) {
      if (!keyNames.has(dir.name.value)) continue;
      const fieldsArg = (dir.arguments || []).find((a) => a.name.value === 'fields');
      const fields = fieldsArg ? (fieldsArg.value.kind === Kind.STRING ? fieldsArg.value.value : print(fieldsArg.value)) : '?';
      const list = entities.get(def.name.value) || [];
      list.push(fields);
      entities.set(def.name.value, list);
    }
  }
  return entities;
}

async function main() {
  const args = process.argv.slice(2);
  if (args.includes('-h') || args.includes('--help')) usage();
  if (args.length < 2 || args.length > 3) usage('expected 2 or 3 arguments');
  const [subgraphUrl, apiKey] = args;
  const query = args[2] && args[2].trim() !== '' ? args[2] : DEFAULT_QUERY;
  try {
    const u = new URL(subgraphUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    usage(`invalid subgraph URL ${JSON.stringify(subgraphUrl)}`);
  }
  if (apiKey === '') usage('empty api key');
  try {
    parse(query);
  } catch (err) {
    usage(`query does not parse: ${err.message}`);
  }

  // 1. SDL
  console.log(`federation: fetching SDL from ${subgraphUrl}`);
  const sdl = await fetchSdl(subgraphUrl, apiKey);
  let typeDefs;
  try {
    typeDefs = parse(sdl);
  } catch (err) {
    fail(`subgraph SDL does not parse: ${err.message}`);
  }
  console.log(`federation: SDL is ${sdl.length} bytes, ${typeDefs.definitions.length} definitions`);

  // 2. Composition
  const result = composeServices([{ name: SUBGRAPH_NAME, typeDefs, url: subgraphUrl }]);
  for (const hint of result.hints || []) {
    const code = hint.definition && hint.definition.code ? `[${hint.definition.code}] ` : '';
    console.log(`federation: composition hint: ${code}${hint.message}`);
  }
  if (result.errors && result.errors.length > 0) {
    console.error(`federation: composition FAILED with ${result.errors.length} error(s):`);
    console.error(formatGraphQLErrors(result.errors));
    return 1;
  }
  if (!result.supergraphSdl) fail('composition returned neither errors nor a supergraph SDL');
  console.log('federation: composition OK');

  // 3. Entities
  const entities = entityTypes(typeDefs);
  if (entities.size > 0) {
    console.log(`federation: ${entities.size} entity type(s) with @key:`);
    for (const [name, keys] of [...entities].sort(([a], [b]) => a.localeCompare(b))) {
      console.log(`  ${name} @key(${keys.map((k) => `fields: ${JSON.stringify(k)}`).join(') @key(')})`);
    }
  } else {
    console.log('federation: no @key entity types declared');
  }

  // 4. Gateway
  class AuthenticatedDataSource extends RemoteGraphQLDataSource {
    willSendRequest({ request }) {
      request.http.headers.set('Authorization', `Bearer ${apiKey}`);
    }
  }
  const gateway = new ApolloGateway({
    supergraphSdl: result.supergraphSdl,
    buildService: ({ url }) => new AuthenticatedDataSource({ url }),
  });
  const server = new ApolloServer({
    gateway,
    introspection: true,
    includeStacktraceInErrorResponses: false,
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginUsageReportingDisabled(),
      ApolloServerPluginSchemaReportingDisabled(),
    ],
  });
  let started = false;
  try {
    const { url } = await startStandaloneServer(server, { listen: { host: '127.0.0.1', port: 0 } });
    started = true;
    console.log(`federation: gateway listening on ${url}`);
    console.log(`federation: query: ${query}`);
    const { status, json } = await postGraphQL(url, { query });
    console.log(JSON.stringify(json, null, 2));
    if (Array.isArray(json.errors) && json.errors.length > 0) {
      fail(`gateway response has errors (HTTP ${status}):\n${formatGraphQLErrors(json.errors)}`);
    }
    if (status < 200 || status >= 300) fail(`gateway answered HTTP ${status}`);
    if (!json.data || typeof json.data !== 'object') fail('gateway response has no data');
    console.log('federation: OK');
    return 0;
  } finally {
    if (started) {
      await server.stop();
    } else {
      await gateway.stop().catch(() => {});
    }
  }
}

const watchdog = setTimeout(() => {
  console.error(`federation: FAILED: timed out after ${OVERALL_TIMEOUT_MS} ms`);
  process.exit(1);
}, OVERALL_TIMEOUT_MS);
watchdog.unref();

main().then(
  (code) => {
    // Exit explicitly: keep-alive sockets or timers left by dependencies must not keep us running.
    process.exit(code);
  },
  (err) => {
    console.error(`federation: FAILED: ${describeError(err)}`);
    process.exit(1);
  },
);
