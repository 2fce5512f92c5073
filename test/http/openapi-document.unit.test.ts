import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { dereference, validate } from '@readme/openapi-parser';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { nextSecond } from '../helpers/files.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { type HttpResponse, request } from '../helpers/http.ts';
import { noteCredential } from '../helpers/log-secrets.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { type AuthHeaders, newWallet, signIn, signTypedData } from '../helpers/wallets.ts';

/**
 * /api/openapi.json is checked against the service itself: the document must be valid OpenAPI,
 * and every operation it lists is called, its answers (successes and errors) matched against
 * what it declares for that status: the media type, the JSON body's schema, no body when none is
 * declared, and its declared headers: present when required, and of the declared shape whenever
 * sent. An operation without a request here fails the test, so a new route cannot go undocumented
 * or untried; nor can a declared header go unseen.
 */

// ajv-formats is CommonJS: its function is the module itself, under `default` only for bundlers.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Operation = {
  operationId?: string;
  requestBody?: { content: Record<string, { schema: object }> };
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string; example?: unknown }[];
  responses: Record<
    string,
    { description?: string; content?: Record<string, { schema: object; example?: unknown }>; headers?: Record<string, DeclaredHeader> }
  >;
};
type DeclaredHeader = { schema: object; required?: boolean; description?: string };
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> };

const METHODS = ['get', 'head', 'put', 'post', 'delete', 'patch', 'options'];
const WALLET_REQUIREMENT = { walletAddress: [], walletSignature: [], walletMessage: [] };

function operationsOf(document: Document): [string, Operation][] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]): [string, Operation] => [`${method.toUpperCase()} ${path}`, operation]),
  );
}

/** `application/json; charset=utf-8` → `application/json;charset=utf-8`, lower case: how media types compare. */
const normalized = (mediaType: string) => mediaType.toLowerCase().replaceAll(' ', '');

function declaredMediaType(declared: string[], actual: string): string | undefined {
  const type = normalized(actual);
  const base = type.split(';')[0]!;
  return declared.find((candidate) => {
    const wanted = normalized(candidate);
    if (wanted === '*/*') return true;
    if (wanted.endsWith('/*')) return base.startsWith(wanted.slice(0, -1));
    // Declared with parameters (the restore's charset): those exact bytes; otherwise the type.
    return wanted.includes(';') ? type === wanted : base === wanted;
  });
}

/** The operation whose path template matches `path` (no query), for the method. */
function operationKeyOf(document: Document, method: string, path: string): string | undefined {
  const bare = path.split('?')[0]!;
  const template = Object.keys(document.paths).find((candidate) => {
    const pattern = candidate.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}|\{[^}]+\}/g, '[^/]+');
    return new RegExp(`^${pattern}$`).test(bare) && document.paths[candidate]![method.toLowerCase()] !== undefined;
  });
  return template === undefined ? undefined : `${method} ${template}`;
}

const jsonBody = (body: unknown) => ({ headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

/**
 * Each way to spoil one member of a valid JSON body: another JSON type in its place (the text of a
 * number or boolean, a number for a text, a list for one item, one item for a list, 1 for true), and
 * an unknown member beside it, at every depth; with what the refusal must name (the member's path,
 * or the unknown member).
 */
function* changesOf(body: Record<string, unknown>): Generator<{ changed: unknown; names: string }> {
  type Path = (string | number)[];
  const setAt = (root: unknown, path: Path, value: unknown): unknown => {
    if (path.length === 0) return value;
    const [head, ...rest] = path as [string | number, ...Path];
    const copy = (Array.isArray(root) ? [...root] : { ...(root as object) }) as Record<string | number, unknown>;
    copy[head] = setAt(copy[head], rest, value);
    return copy;
  };
  const otherTypes = (value: unknown): unknown[] => {
    if (typeof value === 'string') return [123, [value]];
    if (typeof value === 'number') return [String(value)];
    if (typeof value === 'boolean') return [String(value), value ? 1 : 0];
    if (Array.isArray(value)) return [value[0] ?? 'x'];
    return ['x'];
  };
  function* visit(value: unknown, path: Path): Generator<{ changed: unknown; names: string }> {
    if (path.length > 0)
      for (const other of otherTypes(value)) yield { changed: setAt(body, path, other), names: `body/${path.join('/')}` };
    if (Array.isArray(value)) for (const [i, item] of value.entries()) yield* visit(item, [...path, i]);
    else if (typeof value === 'object' && value !== null) {
      yield { changed: setAt(body, path, { ...value, channel: 'chn_0000000000000000000000000' }), names: 'channel' };
      for (const [name, member] of Object.entries(value)) yield* visit(member, [...path, name]);
    }
  }
  yield* visit(body, []);
}

for (const engine of ['sqlite'] as const) {
  describe(`the OpenAPI document describes the API as it answers (${engine})`, () => {
    let svc: TestService;
    let fixture: TenantFixture;
    let owner: AuthHeaders;
    let raw: Document;
    let document: Document;
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    ajv.addFormat('binary', true);
    const validators = new Map<object, ValidateFunction>();
    /** Operation key → the statuses it answered here. */
    const answered = new Map<string, number[]>();
    /** "operation status header" of every declared header an answer carried. */
    const headersSeen = new Set<string>();

    before(async () => {
      // Signed links, so that the download's alternative security (a link, no wallet) is called too.
      svc = await startTestService(engine, {
        env: {
          FILE_URL_SIGNING: 'true',
          FILE_URL_SECRET: 'openapi-test-secret-0123456789abcdef',
          // A webhook to a loopback port nobody answers: its deliveries fail fast and die within a second.
          OUTBOUND_ALLOW: '127.0.0.0/8',
          SECRETS_KEY: '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff',
          EVENTS_POLL_INTERVAL: '20',
          EVENTS_TIMEOUT: '300',
          EVENTS_BACKOFF_MAX: '50',
          EVENTS_RETRY_FOR: '1',
        },
      });
      fixture = await createTenantFixture(svc.service.store, 'Docs');
      owner = await signIn(fixture.ownerWallet, new URL(svc.baseUrl).host);
      raw = (await request(svc.baseUrl, '/api/openapi.json')).json();
      document = (await dereference(structuredClone(raw) as never)) as unknown as Document;
    });
    after(() => svc.close());

    /** Sends the request and checks its answer against the operation the document lists for it. */
    async function call(
      method: string,
      path: string,
      options: { headers?: object; body?: string; auth?: boolean } = {},
    ): Promise<HttpResponse> {
      const key = operationKeyOf(document, method, path);
      assert.ok(key, `${method} ${path} is in the document`);
      const headers = { ...(options.auth === false ? {} : owner), ...options.headers };
      const response = await request(svc.baseUrl, path, { method, headers, body: options.body });
      assertConforms(key, response);
      answered.set(key, [...(answered.get(key) ?? []), response.status]);
      return response;
    }

    function assertConforms(key: string, response: HttpResponse): void {
      const where = `${key} answered ${response.status} ${response.headers['content-type'] ?? ''}: ${response.body.slice(0, 300)}`;
      const declared =
        document.paths[key.slice(key.indexOf(' ') + 1)]![key.split(' ')[0]!.toLowerCase()]!.responses[String(response.status)];
      assert.ok(declared, `${where}: status not declared`);
      assertDeclaredHeaders(`${key} ${response.status}`, declared.headers ?? {}, response, where);
      if (key.startsWith('HEAD ')) {
        assert.equal(response.bytes.length, 0, `${where}: a HEAD has no body`);
        return;
      }
      if (declared.content === undefined) {
        assert.equal(response.bytes.length, 0, `${where}: no body is declared`);
        return;
      }
      const actualType = response.headers['content-type'];
      assert.ok(actualType, `${where}: no Content-Type`);
      const mediaType = declaredMediaType(Object.keys(declared.content), actualType);
      assert.ok(mediaType, `${where}: Content-Type not among ${Object.keys(declared.content).join(', ')}`);
      const schema = declared.content[mediaType]!.schema;
      // JSON Lines (the audit export) is one JSON text per line, not one JSON text.
      if (/ndjson/.test(actualType)) {
        for (const line of response.body.split('\n').filter(Boolean))
          assert.doesNotThrow(() => JSON.parse(line), `${where}: a line is not JSON`);
        return;
      }
      if (!/json/.test(actualType)) {
        if ((schema as { format?: string }).format === 'uri') assert.ok(URL.canParse(response.body), `${where}: not a URL`);
        return;
      }
      let validator = validators.get(schema);
      if (validator === undefined) {
        validator = ajv.compile(schema);
        validators.set(schema, validator);
      }
      assert.ok(validator(response.json()), `${where}: body does not match its schema: ${JSON.stringify(validator.errors)}`);
    }

    /** Each declared header: there when required, and its value of the declared schema whenever sent. */
    function assertDeclaredHeaders(answer: string, headers: Record<string, DeclaredHeader>, response: HttpResponse, where: string): void {
      for (const [name, header] of Object.entries(headers)) {
        const value = response.headers[name.toLowerCase()];
        if (value === undefined) {
          assert.ok(!header.required, `${where}: the required header ${name} is missing`);
          continue;
        }
        headersSeen.add(`${answer} ${name}`);
        let validator = validators.get(header.schema);
        if (validator === undefined) {
          validator = ajv.compile(header.schema);
          validators.set(header.schema, validator);
        }
        // Header values are text: a number's schema gets the number the text spells.
        const typed = (header.schema as { type?: string }).type;
        const content = typed === 'integer' || typed === 'number' ? Number(value) : value;
        assert.ok(validator(content), `${where}: header ${name}: ${JSON.stringify(value)} does not match ${JSON.stringify(header.schema)}`);
      }
    }

    test('is a valid OpenAPI 3.1 document', async () => {
      assert.equal(raw.openapi, '3.1.0');
      const result = await validate(structuredClone(raw) as never);
      assert.ok(result.valid, JSON.stringify(result, null, 1));
    });

    test('every operation has its own stable operationId, a name a generated client can use as a method', () => {
      // Pinned: a client generated from the document (openapi-generator, orval, openapi-fetch) names
      // its methods after these, so renaming one breaks its users.
      const expected = new Map([
        ['GET /api/openapi.json', 'getOpenApiDocument'],
        ['GET /healthz', 'getHealth'],
        ['GET /readyz', 'getReadiness'],
        ['GET /api/docs', 'getApiReference'],
        ['GET /api/auth/test', 'getAuthTest'],
        ['GET /api/auth/nonce', 'issueNonce'],
        ['POST /api/auth/logout', 'logout'],
        ['GET /api/channels', 'listChannels'],
        ['PUT /api/channels/{channelRef}/folders/{folderName}/files/{filename}', 'uploadFile'],
        ['GET /api/channels/{channelRef}/folders/{folderName}/files/{filename}', 'downloadFile'],
        ['HEAD /api/channels/{channelRef}/folders/{folderName}/files/{filename}', 'downloadFileHeaders'],
        ['DELETE /api/channels/{channelRef}/folders/{folderName}/files/{filename}', 'deleteFile'],
        ['GET /api/channels/{channelRef}/folders/{folderName}/files', 'listFiles'],
        ['GET /api/channels/{channelRef}/folders/{folderName}/files/{filename}/versions', 'listFileVersions'],
        ['POST /api/channels/{channelRef}/folders/{folderName}/files/{filename}/restore', 'restoreFile'],
        ['POST /api/channels/{channelRef}/folders/{folderName}/restore', 'restoreFolder'],
        ['POST /api/channels/{channelRef}/restore', 'restoreChannel'],
        ['GET /api/channels/{channelRef}/folders', 'listFolders'],
        ['POST /api/channels/{channelRef}/backups', 'createBackup'],
        ['GET /api/channels/{channelRef}/backups', 'listBackups'],
        ['DELETE /api/channels/{channelRef}/backups/{backupTimestamp}', 'deleteBackup'],
        ['PUT /api/channels/{channelRef}/backups/{backupTimestamp}/lock', 'lockBackup'],
        ['DELETE /api/channels/{channelRef}/backups/{backupTimestamp}/lock', 'unlockBackup'],
        ['GET /api/channels/{channelRef}/audit', 'listAuditEvents'],
        ['GET /api/channels/{channelRef}/folders/{folderName}/deleted', 'listDeletedFiles'],
        ['GET /api/channels/{channelRef}/changes', 'listChanges'],
        ['GET /api/channels/{channelRef}/folders/{folderName}/archive', 'archiveFolder'],
        ['GET /api/channels/{channelRef}/archive', 'archiveChannel'],
        // Resumable uploads, tus 1.0.0 (docs/uploads.md)
        ['POST /api/channels/{channelRef}/uploads', 'createUpload'],
        ['HEAD /api/channels/{channelRef}/uploads/{uploadId}', 'uploadStatus'],
        ['PATCH /api/channels/{channelRef}/uploads/{uploadId}', 'appendToUpload'],
        ['DELETE /api/channels/{channelRef}/uploads/{uploadId}', 'terminateUpload'],
        // Tenant self-service (docs/administration.md)
        ['POST /api/channels', 'createChannel'],
        ['PATCH /api/channels/{channelRef}', 'updateChannel'],
        ['GET /api/admins', 'listAdmins'],
        ['POST /api/admins', 'createAdmin'],
        ['GET /api/admins/{adminId}', 'getAdmin'],
        ['PATCH /api/admins/{adminId}', 'updateAdmin'],
        ['DELETE /api/admins/{adminId}', 'removeAdmin'],
        ['GET /api/admins/{adminId}/wallets', 'listAdminWallets'],
        ['POST /api/admins/{adminId}/wallets', 'addAdminWallet'],
        ['DELETE /api/admins/{adminId}/wallets/{address}', 'removeAdminWallet'],
        ['POST /api/admins/{adminId}/wallets/challenge', 'createWalletChallenge'],
        ['POST /api/invitations', 'createInvitation'],
        ['GET /api/invitations', 'listInvitations'],
        ['DELETE /api/invitations/{invitationId}', 'revokeInvitation'],
        ['POST /api/invitations/preview', 'previewInvitation'],
        ['POST /api/invitations/{token}/accept', 'acceptInvitation'],
        ['GET /api/channels/{channelRef}/admins', 'listChannelAdmins'],
        ['PUT /api/channels/{channelRef}/admins/{adminId}', 'linkChannelAdmin'],
        ['DELETE /api/channels/{channelRef}/admins/{adminId}', 'unlinkChannelAdmin'],
        ['GET /api/audit', 'listTenantAudit'],
        ['GET /api/audit/export', 'exportTenantAudit'],
        ['GET /api/audit/head', 'getAuditHead'],
        ['GET /api/policies', 'getPolicy'],
        ['PUT /api/policies', 'putPolicy'],
        ['GET /api/proposals', 'listProposals'],
        ['GET /api/proposals/{proposalId}', 'getProposal'],
        ['DELETE /api/proposals/{proposalId}', 'withdrawProposal'],
        ['POST /api/proposals/{proposalId}/approvals', 'approveProposal'],
        ['POST /api/webhooks', 'createWebhook'],
        ['GET /api/webhooks', 'listWebhooks'],
        ['GET /api/webhooks/{webhookId}', 'getWebhook'],
        ['PATCH /api/webhooks/{webhookId}', 'updateWebhook'],
        ['DELETE /api/webhooks/{webhookId}', 'deleteWebhook'],
        ['POST /api/webhooks/{webhookId}/test', 'testWebhook'],
        ['POST /api/webhooks/{webhookId}/rotate-secret', 'rotateWebhookSecret'],
        ['GET /api/webhooks/{webhookId}/deliveries', 'listWebhookDeliveries'],
        ['POST /api/webhooks/{webhookId}/deliveries/{deliveryId}/retry', 'retryWebhookDelivery'],
        ['PUT /api/offsite', 'setTenantOffsite'],
        ['GET /api/offsite', 'getTenantOffsite'],
        ['DELETE /api/offsite', 'removeTenantOffsite'],
        ['POST /api/offsite/test', 'testTenantOffsite'],
        // Quotas (docs/quotas.md)
        ['GET /api/usage', 'getTenantUsage'],
        ['GET /api/channels/{channelRef}/quota', 'getChannelQuota'],
        ['PUT /api/channels/{channelRef}/quota', 'putChannelQuota'],
        ['GET /api/channels/{channelRef}/usage', 'getChannelUsage'],
        ['GET /api/channels/{channelRef}/policy', 'getChannelPolicy'],
        ['PUT /api/channels/{channelRef}/policy', 'putChannelPolicy'],
      ]);
      const actual = new Map(operationsOf(document).map(([key, operation]) => [key, operation.operationId]));
      assert.deepEqual(actual, expected);
      for (const id of actual.values()) assert.match(String(id), /^[a-z][A-Za-z]*$/, 'a camelCase identifier in every language');
    });

    test('every response says what it is and shows a real example of its body, valid against its schema', () => {
      // Swagger UI shows @fastify/swagger's placeholder for an undescribed answer, and makes up
      // additionalProp1 for an object schema that allows more properties when no example is given.
      assert.doesNotMatch(JSON.stringify(raw), /Default Response|additionalProp\d/);
      let examples = 0;
      for (const [key, operation] of operationsOf(document)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          assert.ok(response.description, `${key} ${status} has a description`);
          for (const [mediaType, media] of Object.entries(response.content ?? {})) {
            const where = `${key} ${status} ${mediaType}`;
            assert.ok(media.example !== undefined, `${where} has an example`);
            examples++;
            if (!mediaType.includes('json')) {
              assert.equal(typeof media.example, 'string', `${where}: a text example`);
              continue;
            }
            const validator = ajv.compile(media.schema);
            assert.ok(validator(media.example), `${where}: its example does not match its schema: ${JSON.stringify(validator.errors)}`);
          }
        }
      }
      assert.ok(examples > 150, `${examples} examples`);
    });

    test("a problem's example is what its operation answers: its path, and its own refusal of an unknown query parameter", async () => {
      for (const [key, operation] of operationsOf(document)) {
        if (key.startsWith('HEAD ')) continue;
        const example = operation.responses['400']?.content?.['application/problem+json']?.example as Record<string, unknown>;
        assert.ok(example, `${key} declares a 400 with an example`);
        const method = key.slice(0, key.indexOf(' '));
        // Refused before anything else is read, signed in or not: the query comes first.
        const answer = await call(method, `${String(example.instance)}?dry_run=true`, { auth: false });
        assert.equal(answer.status, 400, key);
        const { requestId: _, ...problem } = answer.json();
        const { requestId: __, ...shown } = example;
        assert.deepEqual(problem, shown, key);
        for (const [status, response] of Object.entries(operation.responses)) {
          const other = response.content?.['application/problem+json']?.example as Record<string, unknown> | undefined;
          if (other) assert.equal(other.instance, example.instance, `${key} ${status}: the same instance`);
        }
      }
    });

    test('every operation names its security: the three wallet headers together, or none', () => {
      const schemes = (raw as unknown as { components: { securitySchemes: Record<string, { in: string; name: string }> } }).components
        .securitySchemes;
      assert.deepEqual(
        Object.values(schemes).map((scheme) => `${scheme.in}:${scheme.name}`),
        ['header:X-WAL', 'header:X-SIG', 'header:X-MES'],
      );
      for (const [key, operation] of operationsOf(document)) {
        assert.ok(Array.isArray(operation.security), `${key} declares its security`);
        for (const requirement of operation.security) {
          assert.ok(
            Object.keys(requirement).length === 0 || JSON.stringify(requirement) === JSON.stringify(WALLET_REQUIREMENT),
            `${key}: ${JSON.stringify(requirement)}`,
          );
        }
        // A HEAD answers no body, so declares none.
        for (const [status, response] of Object.entries(key.startsWith('HEAD ') ? {} : operation.responses)) {
          if (Number(status) < 400) continue;
          assert.deepEqual(Object.keys(response.content ?? {}), ['application/problem+json'], `${key} ${status} is a problem`);
        }
      }
    });

    test("the download's, the upload's and the restore's headers are declared with the shape of their values", () => {
      const headersOf = (key: string, status: number) => {
        const [method, path] = key.split(' ') as [string, string];
        return document.paths[path]![method.toLowerCase()]!.responses[String(status)]!.headers ?? {};
      };
      const file = '/api/channels/{channelRef}/folders/{folderName}/files/{filename}';
      const shaped = (header: DeclaredHeader | undefined) => {
        const schema = header?.schema as { pattern?: string; enum?: unknown[] } | undefined;
        return schema?.pattern !== undefined || schema?.enum !== undefined;
      };
      for (const [key, status, always, sometimes] of [
        [`GET ${file}`, 200, ['ETag', 'Content-Length', 'Last-Modified', 'Accept-Ranges', 'Content-Disposition'], []],
        [`GET ${file}`, 206, ['ETag', 'Content-Range', 'Content-Length'], []],
        [`GET ${file}`, 304, ['ETag'], []],
        [`HEAD ${file}`, 200, ['ETag', 'Content-Length'], []],
        [`PUT ${file}`, 201, ['ETag'], []],
        [`PUT ${file}`, 200, ['ETag'], []],
        [`POST ${file}/restore`, 200, [], ['X-Kept-Version-Id']],
      ] as const) {
        const headers = headersOf(key, status);
        for (const name of always)
          assert.ok(headers[name]?.required === true && shaped(headers[name]), `${key} ${status}: ${name}, required, shaped`);
        for (const name of sometimes)
          assert.ok(headers[name]?.required !== true && shaped(headers[name]), `${key} ${status}: ${name}, optional, shaped`);
      }
    });

    test('every time in an answer is declared an RFC 3339 string', () => {
      const times: string[] = [];
      const visit = (schema: unknown, where: string): void => {
        if (schema === null || typeof schema !== 'object') return;
        for (const [name, value] of Object.entries(schema as Record<string, unknown>)) {
          if (name === 'properties') {
            for (const [property, propertySchema] of Object.entries(value as Record<string, { type?: unknown; format?: string }>)) {
              if (/At$|^time$/.test(property)) {
                times.push(`${where}.${property}`);
                assert.equal(propertySchema.format, 'date-time', `${where}.${property}`);
                assert.equal(propertySchema.type, 'string', `${where}.${property}`);
              }
            }
          }
          visit(value, `${where}.${name}`);
        }
      };
      for (const [key, operation] of operationsOf(document)) visit(operation.responses, key);
      // createdAt, updatedAt, time, deletedAt, expiresAt: the check saw them.
      for (const name of ['createdAt', 'updatedAt', 'time', 'deletedAt', 'expiresAt']) {
        assert.ok(
          times.some((time) => time.endsWith(`.${name}`)),
          `${name} is in the document`,
        );
      }
    });

    test('every operation answers as it is documented, its errors included', async () => {
      const channel = `/api/channels/${fixture.channel.id}`;
      const file = `${channel}/folders/docs/files/notes.txt`;
      const plain = { 'Content-Type': 'text/plain' };

      await call('GET', '/api/openapi.json', { auth: false });
      await call('GET', '/healthz', { auth: false });
      await call('GET', '/readyz', { auth: false });
      const docs = await call('GET', '/api/docs', { auth: false });
      await call('GET', '/api/docs', { auth: false, headers: { 'If-None-Match': docs.headers.etag } });
      await call('GET', '/api/auth/test');
      await call('GET', '/api/auth/nonce', { auth: false });

      assert.equal((await call('PUT', file, { headers: plain, body: 'first version' })).status, 201);
      const backup = await call('POST', `${channel}/backups`);
      assert.equal(backup.status, 201);
      const replaced = await call('PUT', file, { headers: plain, body: 'second version' });
      assert.equal(replaced.status, 200);
      assert.equal((await call('PUT', file, { headers: { ...plain, 'If-None-Match': '*' }, body: 'x' })).status, 412);

      assert.equal((await call('GET', '/api/channels')).status, 200);
      assert.equal((await call('GET', '/api/channels?limit=0')).status, 400);
      await call('GET', `${channel}/folders`);
      await call('GET', `${channel}/folders/docs/files`);
      await call('GET', `${file}/versions`);
      await call('GET', `${channel}/backups`);
      const backupPath = `${channel}/backups/${backup.json().timestamp}`;
      const lockBody = JSON.stringify({ mode: 'governance', until: new Date(Date.now() + 86_400_000).toISOString() });
      assert.equal(
        (await call('PUT', `${backupPath}/lock`, { headers: { 'Content-Type': 'application/json' }, body: lockBody })).status,
        200,
      );
      assert.equal((await call('PUT', `${backupPath}/lock`, { headers: { 'Content-Type': 'application/json' }, body: '{}' })).status, 400);
      assert.equal((await call('DELETE', backupPath)).status, 409);
      assert.equal((await call('DELETE', `${backupPath}/lock`)).status, 200);
      await call('GET', `${channel}/audit?action=upload`);
      assert.equal((await call('GET', `${channel}/audit?action=sing`)).status, 400);
      await call('GET', `${channel}/changes?from=${backup.json().timestamp}`);
      assert.equal((await call('GET', `${channel}/folders/docs/archive`)).status, 200);
      assert.equal((await call('GET', `${channel}/archive?backupTimestamp=${backup.json().timestamp}`)).status, 200);
      assert.equal((await call('GET', `${channel}/archive?backupTimestamp=19990101_000000`)).status, 404);

      const download = await call('GET', file);
      assert.equal(download.body, 'second version');
      for (const name of ['etag', 'content-length', 'accept-ranges', 'last-modified', 'content-disposition']) {
        assert.ok(download.headers[name], `the download sends ${name}`);
      }
      const part = await call('GET', file, { headers: { Range: 'bytes=0-5' } });
      assert.equal(part.status, 206);
      assert.equal(part.headers['content-range'], 'bytes 0-5/14');
      assert.equal((await call('GET', file, { headers: { 'If-None-Match': download.headers.etag } })).status, 304);
      assert.equal((await call('GET', file, { headers: { Range: 'bytes=100-200' } })).status, 416);
      assert.equal((await call('HEAD', file)).headers['content-length'], '14');
      assert.equal((await call('HEAD', file, { headers: { Range: 'bytes=0-5' } })).status, 206);
      assert.equal((await call('HEAD', file, { headers: { 'If-None-Match': download.headers.etag } })).status, 304);
      assert.equal((await call('HEAD', `${channel}/folders/docs/files/none.txt`)).status, 404);

      const restored = await call('POST', `${file}/restore?backupTimestamp=${backup.json().timestamp}`);
      assert.equal(restored.status, 200);
      assert.equal(restored.headers['content-type'], 'text/plain;charset=ISO-8859-1');
      // The signed link the restore answered: no wallet needed (the download's other security).
      const link = new URL(restored.body);
      assert.equal((await call('GET', `${link.pathname}${link.search}`, { auth: false })).body, 'first version');
      assert.equal((await call('POST', `${file}/restore?backupTimestamp=20000101_000000`)).status, 404);
      const unmet = { 'If-Match': `"${'0'.repeat(64)}"` };
      assert.equal((await call('POST', `${file}/restore`, { headers: unmet })).status, 412);
      assert.equal((await call('POST', `${file}/restore`, { headers: plain, body: 'x' })).status, 400);
      assert.equal((await call('POST', `${file}/restore`, { headers: { 'Content-Type': 'application/xml' }, body: '<x/>' })).status, 415);
      assert.equal((await call('POST', `${channel}/folders/docs/restore?backupTimestamp=20000101_000000&dryRun=true`)).status, 404);
      const plan = await call('POST', `${channel}/folders/docs/restore?backupTimestamp=${backup.json().timestamp}&dryRun=true`);
      assert.match(plan.headers.etag ?? '', /^"[0-9a-f]{64}"$/, 'the plan answers its ETag, as documented');
      const channelPlan = `${channel}/restore?backupTimestamp=${backup.json().timestamp}&dryRun=true`;
      assert.equal(
        (await call('POST', channelPlan, { headers: { 'If-Match': plan.headers.etag } })).status,
        412,
        "the folder's plan is not the channel's",
      );
      assert.equal((await call('POST', channelPlan, { headers: { 'If-None-Match': '*' } })).status, 400);
      await call('POST', channelPlan);
      await call('GET', `${channel}/audit?operationId=op_none`);
      assert.equal((await call('POST', `${channel}/restore?dry_run=true`)).status, 400);

      assert.equal((await call('DELETE', backupPath)).status, 204);
      assert.equal((await call('DELETE', backupPath)).status, 404);
      assert.equal((await call('DELETE', file)).status, 204);
      assert.equal((await call('DELETE', file)).status, 404);
      await call('GET', `${channel}/folders/docs/deleted`);

      // Tenant self-service: every operation once with success, and its refusals as documented.
      const json = { 'Content-Type': 'application/json' };
      const post = (path: string, body: object) => call('POST', path, { headers: json, body: JSON.stringify(body) });
      const helper = newWallet();
      const made = await post('/api/admins', {
        displayName: 'Helper',
        wallet: helper.address,
        permissions: ['files:read'],
        channels: [fixture.channel.id],
      });
      assert.equal(made.status, 201, made.body);
      const helperId = made.json().id as string;
      assert.equal((await post('/api/admins', { displayName: 'Again', wallet: helper.address, permissions: [] })).status, 409);
      await call('GET', '/api/admins?status=ACTIVE');
      const read = await call('GET', `/api/admins/${helperId}`);
      assert.equal((await call('GET', '/api/admins/adm_none')).status, 404);
      const renamed = await call('PATCH', `/api/admins/${helperId}`, {
        headers: { ...json, 'If-Match': read.headers.etag },
        body: '{"displayName":"Helper 2"}',
      });
      assert.equal(renamed.status, 200, renamed.body);
      assert.equal(
        (
          await call('PATCH', `/api/admins/${helperId}`, {
            headers: { ...json, 'If-Match': read.headers.etag },
            body: '{"displayName":"x"}',
          })
        ).status,
        412,
      );
      const second = newWallet();
      const challenge = await post(`/api/admins/${helperId}/wallets/challenge`, { wallet: second.address });
      assert.equal(challenge.status, 200, challenge.body);
      const { typedData } = challenge.json();
      const proof = { typedData, signature: await signTypedData(second, typedData) };
      assert.equal((await post(`/api/admins/${helperId}/wallets`, proof)).status, 201);
      await call('GET', `/api/admins/${helperId}/wallets`);
      assert.equal((await call('DELETE', `/api/admins/${helperId}/wallets/${second.address}`)).status, 204);
      assert.equal((await call('DELETE', `/api/admins/${helperId}/wallets/${helper.address}`)).status, 409);
      const created = await post('/api/channels', { name: 'managed' });
      assert.equal(created.status, 201, created.body);
      assert.equal((await call('PATCH', `/api/channels/${created.json().id}`, { headers: json, body: '{"archived":true}' })).status, 200);
      assert.equal((await call('PUT', `/api/channels/${created.json().id}/admins/${helperId}`)).status, 204);
      await call('GET', `/api/channels/${created.json().id}/admins`);
      assert.equal((await call('DELETE', `/api/channels/${created.json().id}/admins/${helperId}`)).status, 204);
      const invited = await post('/api/invitations', { permissions: ['files:read'], expiresIn: 3600 });
      assert.equal(invited.status, 201, invited.body);
      noteCredential(invited.json().token);
      await call('GET', '/api/invitations');
      const preview = (token: string) =>
        call('POST', '/api/invitations/preview', { headers: json, body: JSON.stringify({ token }), auth: false });
      assert.equal((await preview(invited.json().token)).status, 200);
      assert.equal((await preview('wai_none')).status, 404);
      const invitee = await signIn(newWallet(), new URL(svc.baseUrl).host);
      assert.equal((await call('POST', `/api/invitations/${invited.json().token}/accept`, { headers: invitee, auth: false })).status, 201);
      assert.equal((await call('POST', `/api/invitations/${invited.json().token}/accept`, { headers: invitee, auth: false })).status, 409);
      assert.equal((await preview(invited.json().token)).status, 409);
      const revocable = await post('/api/invitations', { permissions: [], expiresIn: 3600 });
      noteCredential(revocable.json().token);
      assert.equal((await call('DELETE', `/api/invitations/${revocable.json().id}`)).status, 204);
      await call('GET', '/api/audit?action=admin.create');
      await call('GET', '/api/audit/head');
      await call('GET', '/api/audit/export?after=1');
      assert.equal((await call('DELETE', `/api/admins/${helperId}`)).status, 204);

      // Events out (docs/events.md): a webhook whose receiver is never there; its deliveries die, one is retried.
      const hook = await post('/api/webhooks', { url: 'http://127.0.0.1:9/hook', types: ['upload'] });
      assert.equal(hook.status, 201, hook.body);
      noteCredential(hook.json().secret);
      const hookPath = `/api/webhooks/${hook.json().id}`;
      await call('GET', '/api/webhooks');
      await call('GET', hookPath);
      assert.equal((await call('PATCH', hookPath, { headers: json, body: '{"folders":["docs"]}' })).status, 200);
      assert.equal((await post(`${hookPath}/test`, {})).json().delivered, false);
      const rotated = await post(`${hookPath}/rotate-secret`, {});
      assert.equal(rotated.status, 200, rotated.body);
      noteCredential(rotated.json().secret);
      assert.equal((await call('PUT', `${channel}/folders/docs/files/hooked.txt`, { headers: plain, body: 'h' })).status, 201);
      let dead: { id: string } | undefined;
      for (let waited = 0; dead === undefined && waited < 10_000; waited += 50) {
        dead = (await call('GET', `${hookPath}/deliveries?status=dead`)).json().items[0];
        if (dead === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok(dead, 'the failing delivery is dead-lettered after EVENTS_RETRY_FOR');
      assert.equal((await post(`${hookPath}/deliveries/${dead.id}/retry`, {})).json().status, 'dead');
      assert.equal((await call('DELETE', hookPath)).status, 204);

      // The tenant's own off-site copy (docs/offsite.md): a target nobody listens at; its test says so.
      assert.equal((await call('GET', '/api/offsite')).status, 404);
      const offsiteTarget = {
        url: 's3://tenant-copy/docs',
        endpoint: 'http://127.0.0.1:9',
        forcePathStyle: true,
        accessKeyId: 'TENANTKEY',
        secretAccessKey: 'tenant-openapi-secret',
        recipients: ['age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p'],
      };
      noteCredential(offsiteTarget.secretAccessKey);
      assert.equal((await call('PUT', '/api/offsite', { headers: json, body: JSON.stringify(offsiteTarget) })).status, 200);
      assert.equal((await call('GET', '/api/offsite')).status, 200);
      assert.equal((await post('/api/offsite/test', {})).json().ok, false);
      assert.equal((await call('DELETE', '/api/offsite')).status, 204);

      // Quotas (docs/quotas.md): the tenant's usage, a channel's quota set and read, its usage.
      assert.equal((await call('GET', '/api/usage')).status, 200);
      const quotaPath = `/api/channels/${fixture.channel.id}/quota`;
      assert.equal((await call('PUT', quotaPath, { headers: json, body: JSON.stringify({ maxBytes: 1e9, maxFiles: null }) })).status, 200);
      assert.equal((await call('PUT', quotaPath, { headers: json, body: JSON.stringify({ maxBytes: 'lots' }) })).status, 400);
      assert.equal((await call('GET', quotaPath)).status, 200);
      assert.equal((await call('GET', `/api/channels/${fixture.channel.id}/usage`)).status, 200);
      assert.equal((await call('GET', '/api/channels/chn_00000000000000000000000000/usage')).status, 404);
      assert.equal((await call('PUT', quotaPath, { headers: json, body: JSON.stringify({ maxBytes: null, maxFiles: null }) })).status, 200);

      // Resumable uploads (docs/uploads.md): one created with its first bytes, asked, completed; one whole at
      // its creation; one deferred, asked and terminated.
      const tus = { 'Tus-Resumable': '1.0.0', 'Content-Type': 'application/offset+octet-stream' };
      const version = { 'Tus-Resumable': '1.0.0' };
      const uploads = `/api/channels/${fixture.channel.id}/uploads`;
      const tusMetadata = `folder ${btoa('docs')},filename ${btoa('tus.txt')}`;
      const upload = await call('POST', uploads, { headers: { ...tus, 'Upload-Length': '5', 'Upload-Metadata': tusMetadata }, body: 'ab' });
      assert.equal(upload.status, 201, upload.body);
      const uploadUrl = String(upload.headers.location);
      assert.equal((await call('HEAD', uploadUrl, { headers: version })).status, 200);
      assert.equal((await call('PATCH', uploadUrl, { headers: { ...tus, 'Upload-Offset': '0' }, body: 'cde' })).status, 409);
      assert.equal((await call('PATCH', uploadUrl, { headers: { ...tus, 'Upload-Offset': '2' }, body: 'c' })).status, 204);
      assert.equal((await call('PATCH', uploadUrl, { headers: { ...tus, 'Upload-Offset': '3' }, body: 'de' })).status, 204);
      assert.equal(
        (await call('HEAD', uploadUrl, { headers: version })).headers.etag,
        (await call('GET', `${channel}/folders/docs/files/tus.txt`)).headers.etag,
      );
      const whole = await call('POST', uploads, { headers: { ...tus, 'Upload-Length': '3', 'Upload-Metadata': tusMetadata }, body: 'abc' });
      assert.match(String(whole.headers.etag), /^"[0-9a-f]{64}"$/);
      const deferred = await call('POST', uploads, { headers: { ...version, 'Upload-Defer-Length': '1', 'Upload-Metadata': tusMetadata } });
      assert.equal((await call('HEAD', String(deferred.headers.location), { headers: version })).headers['upload-defer-length'], '1');
      assert.equal((await call('DELETE', String(deferred.headers.location), { headers: version })).status, 204);
      assert.equal((await call('DELETE', String(deferred.headers.location), { headers: version })).status, 404);

      // Approvals (docs/approvals.md): a policy holds admin removals; one proposal runs, another is withdrawn.
      await call('GET', '/api/policies');
      await call('GET', `${channel}/policy`);
      assert.equal((await call('PUT', `${channel}/policy`, { headers: json, body: '{"rules":[]}' })).status, 200);
      const rules = [{ operation: 'admin.remove', approvals: 1, permission: 'admins:manage' }];
      assert.equal((await call('PUT', '/api/policies', { headers: json, body: JSON.stringify({ rules }) })).status, 200);
      const removable = async () =>
        (await post('/api/admins', { displayName: 'Held', wallet: newWallet().address, permissions: [] })).json().id;
      const held = await call('DELETE', `/api/admins/${await removable()}`);
      assert.equal(held.status, 202);
      await call('GET', '/api/proposals?status=pending');
      await call('GET', `/api/proposals/${held.json().id}`);
      const { EIP712Domain: _, ...types } = held.json().typedData.types;
      const signature = await fixture.ownerWallet.account.signTypedData({ ...held.json().typedData, types });
      const approved = await post(`/api/proposals/${held.json().id}/approvals`, { wallet: fixture.ownerWallet.address, signature });
      assert.equal(approved.json().status, 'executed');
      const withdrawn = await call('DELETE', `/api/admins/${await removable()}`);
      assert.equal((await call('DELETE', `/api/proposals/${withdrawn.json().id}`)).json().status, 'withdrawn');
      assert.equal((await call('PUT', '/api/policies', { headers: json, body: '{"rules":[]}' })).status, 202);

      // Every operation that needs a wallet refuses a request without one (401), and every
      // operation on a channel answers 404 for a channel the admin is not linked to.
      const member = await createMemberAdmin(svc.service.store, fixture, { channels: [fixture.channel] });
      const memberHeaders = await signIn(member.wallet, new URL(svc.baseUrl).host);
      for (const [key, operation] of operationsOf(document)) {
        const [method, template] = key.split(' ') as [string, string];
        const concrete = template
          .replace('{channelRef}', fixture.channel.id)
          .replace('{folderName}', 'docs')
          .replace('{filename}', 'notes.txt');
        if (JSON.stringify(operation.security) === JSON.stringify([WALLET_REQUIREMENT])) {
          assert.equal((await call(method, concrete, { auth: false })).status, 401, key);
        }
        if (template.includes('{channelRef}')) {
          assert.equal((await call(method, concrete.replace(fixture.channel.id, 'chn_none'))).status, 404, key);
          // Linked to the channel, without any permission.
          if (key !== 'GET /api/channels') {
            assert.equal((await call(method, concrete, { headers: memberHeaders })).status, 403, key);
          }
        }
      }

      // Last: it revokes the owner's message.
      assert.equal((await call('POST', '/api/auth/logout')).status, 204);
      assert.equal((await call('GET', '/api/auth/test')).status, 401);

      for (const [key] of operationsOf(document)) {
        const statuses = answered.get(key) ?? [];
        assert.ok(
          statuses.some((status) => status < 400),
          `${key} was called with success here (answered: ${statuses.join(', ') || 'nothing'}); add a request for it`,
        );
      }
      // Every declared header was checked against a real answer of that operation and status.
      for (const [key, operation] of operationsOf(document)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          for (const name of Object.keys(response.headers ?? {})) {
            assert.ok(
              headersSeen.has(`${key} ${status} ${name}`),
              `${key} ${status}: ${name} was never seen in an answer; add a request that gets it`,
            );
          }
        }
      }
    });

    test('every JSON body is checked as declared: a member of another type, or unknown at any depth, is a 400 naming it; nothing changes', async () => {
      // Signed in afresh: the test before this one signed the owner out.
      owner = await signIn(fixture.ownerWallet, new URL(svc.baseUrl).host);
      const channel = `/api/channels/${fixture.channel.id}`;
      const member = (await createMemberAdmin(svc.service.store, fixture, { permissions: ['files:read'], displayName: 'Body member' }))
        .admin;
      const text = { 'Content-Type': 'text/plain' };
      assert.equal((await call('PUT', `${channel}/folders/bodies/files/a.txt`, { headers: text, body: 'a' })).status, 201);
      await nextSecond(); // a backup of its own, never in the second of another test's
      const backup = (await call('POST', `${channel}/backups`)).json().timestamp;
      const challenge = await call('POST', `/api/admins/${member.id}/wallets/challenge`, jsonBody({ wallet: newWallet().address }));
      const rule = { operation: 'backup.delete', approvals: 1, permission: 'backups:delete' };
      const webhook = (await call('POST', '/api/webhooks', jsonBody({ url: 'http://127.0.0.1:9/z' }))).json();
      noteCredential(webhook.secret);
      const until = new Date(Date.now() + 86_400_000).toISOString();
      // One valid body per operation that takes JSON; each request below changes one member of it.
      const bodies: Record<string, [path: string, body: Record<string, unknown>]> = {
        'POST /api/channels': ['/api/channels', { name: 'bodies' }],
        'PATCH /api/channels/{channelRef}': [channel, { name: 'renamed', archived: false }],
        'POST /api/admins': [
          '/api/admins',
          { displayName: 'Body', wallet: newWallet().address, permissions: ['files:read'], channels: [fixture.channel.id], owner: false },
        ],
        'PATCH /api/admins/{adminId}': [
          `/api/admins/${member.id}`,
          { displayName: 'Renamed', permissions: ['files:read'], status: 'ACTIVE' },
        ],
        'POST /api/admins/{adminId}/wallets': [
          `/api/admins/${member.id}/wallets`,
          { typedData: challenge.json().typedData, signature: '0x00' },
        ],
        'POST /api/admins/{adminId}/wallets/challenge': [
          `/api/admins/${member.id}/wallets/challenge`,
          { wallet: newWallet().address, chainId: 1 },
        ],
        'POST /api/invitations': [
          '/api/invitations',
          {
            permissions: ['files:read'],
            channels: [fixture.channel.id],
            expiresIn: 3600,
            wallet: newWallet().address,
            displayName: 'Invitee',
          },
        ],
        'POST /api/invitations/{token}/accept': ['/api/invitations/wai_none/accept', { displayName: 'Invitee' }],
        'POST /api/invitations/preview': ['/api/invitations/preview', { token: 'wai_none' }],
        'PUT /api/policies': ['/api/policies', { rules: [rule] }],
        'POST /api/proposals/{proposalId}/approvals': [
          '/api/proposals/prp_none/approvals',
          { wallet: newWallet().address, signature: '0x00' },
        ],
        'PUT /api/channels/{channelRef}/backups/{backupTimestamp}/lock': [
          `${channel}/backups/${backup}/lock`,
          { mode: 'governance', until, legalHold: true },
        ],
        'PUT /api/channels/{channelRef}/policy': [`${channel}/policy`, { rules: [rule] }],
        'POST /api/webhooks': [
          '/api/webhooks',
          {
            url: 'http://127.0.0.1:9/x',
            types: ['upload'],
            channels: [fixture.channel.id],
            folders: ['docs'],
            results: ['ok'],
            from: 'head',
          },
        ],
        'PUT /api/channels/{channelRef}/quota': [`/api/channels/${fixture.channel.id}/quota`, { maxBytes: 1000, maxFiles: 10 }],
        'PUT /api/offsite': [
          '/api/offsite',
          {
            url: 's3://tenant-copy/bodies',
            endpoint: 'http://127.0.0.1:9',
            region: 'us-east-1',
            forcePathStyle: true,
            accessKeyId: 'TENANTKEY',
            secretAccessKey: 'tenant-bodies-secret',
            recipients: ['age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p'],
          },
        ],
        'PATCH /api/webhooks/{webhookId}': [
          `/api/webhooks/${webhook.id}`,
          {
            url: 'http://127.0.0.1:9/y',
            types: ['upload'],
            channels: [fixture.channel.id],
            folders: ['docs'],
            results: ['ok'],
            paused: false,
          },
        ],
      };
      const withJsonBodies = operationsOf(document)
        .filter(([, operation]) => operation.requestBody?.content['application/json'] !== undefined)
        .map(([key]) => key);
      assert.deepEqual(Object.keys(bodies).sort(), withJsonBodies.sort(), 'a valid body for every operation that takes JSON');

      const state = async () =>
        Promise.all(
          ['/api/admins?limit=1000', '/api/invitations', '/api/policies', `${channel}/policy`, '/api/channels', `${channel}/backups`].map(
            async (path) => (await request(svc.baseUrl, path, { headers: owner })).body,
          ),
        );
      const before = await state();
      let refused = 0;
      for (const [key, [path, body]] of Object.entries(bodies)) {
        const [method, template] = key.split(' ') as [string, string];
        const schema = document.paths[template]![method.toLowerCase()]!.requestBody!.content['application/json']!.schema;
        const valid = ajv.compile(schema);
        assert.ok(valid(body), `${key}: the base body is valid: ${JSON.stringify(valid.errors)}`);
        for (const { changed, names } of changesOf(body)) {
          const where = `${key} ${JSON.stringify(changed)}`;
          assert.ok(!valid(changed), `${where} is invalid by the document`);
          const answer = await call(method, path, jsonBody(changed));
          assert.equal(answer.status, 400, `${where}: ${answer.body}`);
          assert.equal(answer.json().code, 'VALIDATION_FAILED', where);
          assert.ok(answer.json().detail.includes(names), `${where}: "${answer.json().detail}" names ${names}`);
          refused++;
        }
      }
      assert.deepEqual(await state(), before, 'nothing changed');
      assert.ok(refused > 100, `${refused} bodies refused`);

      // An operation that declares no body reads none: one that says something is refused, naming it, not ignored.
      const concrete = (template: string) =>
        template
          .replace('{channelRef}', fixture.channel.id)
          .replace('{backupTimestamp}', backup)
          .replace('{folderName}', 'bodies')
          .replace('{filename}', 'a.txt')
          .replace('{adminId}', member.id)
          .replace('{proposalId}', 'prp_none')
          .replace('{invitationId}', 'inv_none')
          .replace('{address}', newWallet().address)
          .replace('{token}', 'wai_none')
          .replace('{uploadId}', '0'.repeat(32));
      const bodiless = operationsOf(document).filter(
        ([key, operation]) => /^(POST|PUT|PATCH|DELETE) /.test(key) && operation.requestBody === undefined,
      );
      assert.ok(bodiless.length >= 10, `${bodiless.length} operations without a body`);
      for (const [key] of bodiless) {
        const [method, template] = key.split(' ') as [string, string];
        const answer = await call(method, concrete(template), jsonBody({ legalHold: true }));
        assert.equal(answer.status, 400, `${key}: ${answer.body}`);
        assert.equal(answer.json().code, 'VALIDATION_FAILED', key);
        assert.match(answer.json().detail, /legalHold/, key);
      }
      assert.deepEqual(await state(), before, 'nothing changed by the bodies no operation reads');
    });
  });
}
