/*
 * The values the OpenAPI document shows as examples: answers of a first start's demo data (the
 * published development wallet, channel `demo`, folder `welcome`, file `prices.csv`), so that what
 * the reference shows is what "Try it out" there answers, less the ids and times of the moment.
 * Swagger UI would otherwise make up its own from the schemas ("string", 0, additionalProp1).
 */

export const EXAMPLE_WALLET = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
export const EXAMPLE_ADMIN_ID = 'adm_51mf7z4qbc2g1p1cezj0web2aq';
export const EXAMPLE_TENANT_ID = 't_d14q5wg39qdck3587205zzhpw8';
export const EXAMPLE_CHANNEL_ID = 'chn_asxp0210fbc24wms6ensbaa5rr';
/** Path parameters: the demo's, which exist after a first start on loopback. */
export const EXAMPLE_PATH = { channelRef: 'demo', folderName: 'welcome', filename: 'prices.csv' } as const;
export const EXAMPLE_BACKUP_TIMESTAMP = '20261126_123814';
export const EXAMPLE_TIME = '2026-11-26T12:38:14.441Z';
export const EXAMPLE_SHA256 = '8b13fbdb6b77420b11253bdbbc0f91b23659c5cecd0ab1dbdd8cbaf94df2d1c4';
export const EXAMPLE_ETAG = `"${EXAMPLE_SHA256}"`;
export const EXAMPLE_VERSION_ID = 'ver_01m8bxt5590000cc1f6mvkcjqe';
/** prices.csv as the demo left it (88 bytes, EXAMPLE_SHA256). */
export const EXAMPLE_FILE_BYTES = 'item,unit,price_eur\ncoffee,cup,2.90\ntea,cup,2.20\ncroissant,piece,2.10\nmuffin,piece,2.40\n';
export const EXAMPLE_FILE_URL = 'http://127.0.0.1:8080/api/channels/chn_asxp0210fbc24wms6ensbaa5rr/folders/welcome/files/prices.csv';

/** A real signature by the development wallet of a real sign-in message (expired long since). */
const EXAMPLE_SIGNATURE =
  '0x7a1e669195b503d8ff256a546e5f3a89c2c56c0d78587aa8c077452b2db5727c373ad7a48ebde6725e68db0ccbe9ca26b286dc69fcc123dcb28b7cf43bb57b9f1c';
const EXAMPLE_MESSAGE =
  'base64:MTI3LjAuMC4xOjE4OTMxIHdhbnRzIHlvdSB0byBzaWduIGluIHdpdGggeW91ciBFdGhlcmV1bSBhY2NvdW50OgoweGYzOUZkNmU1MWFhZDg4RjZGNGNlNmFCODgyNzI3OWNmZkZiOTIyNjYKClNpZ24gaW4gdG8gd2FsbGV0LWFkbWluLgoKVVJJOiBodHRwOi8vMTI3LjAuMC4xOjE4OTMxClZlcnNpb246IDEKQ2hhaW4gSUQ6IDEKTm9uY2U6IE56eVF3VlhYdk5vMTh0UUJZVWhsU1YKSXNzdWVkIEF0OiAyMDI2LTExLTI2VDEyOjQyOjI1LjIyNVoKRXhwaXJhdGlvbiBUaW1lOiAyMDI2LTExLTI2VDEzOjQyOjI1LjIyNVo=';

export const EXAMPLE_AUTH_TEST = {
  principal: {
    id: EXAMPLE_ADMIN_ID,
    type: 'ADMIN' as const,
    displayName: 'Demo owner',
    tenantId: EXAMPLE_TENANT_ID,
    ownerAdminId: 'N/A',
    status: 'ACTIVE',
    channelIds: [EXAMPLE_CHANNEL_ID],
    effectivePermissions: ['audit:read', 'backups:create', 'files:read', 'files:restore', 'files:write'],
    effectiveFeatures: [],
  },
  authenticated: true,
  headers: { 'X-WAL': '0xf39Fd6e51aad88F6F4...', 'X-SIG': '0x7a1e669195b503d8ff...', 'X-MES': 'base64:MTI3LjAuMC4xO...' },
  allHeaders: { 'X-WAL': EXAMPLE_WALLET, 'X-SIG': EXAMPLE_SIGNATURE, 'X-MES': EXAMPLE_MESSAGE, 'X-Wallet-Address': EXAMPLE_WALLET },
  walletAddress: EXAMPLE_WALLET,
};

export const EXAMPLE_FILE = {
  folder: 'welcome',
  filename: 'prices.csv',
  size: 88,
  sha256: EXAMPLE_SHA256,
  contentType: 'text/csv; charset=utf-8',
  updatedAt: EXAMPLE_TIME,
};

export const EXAMPLE_BACKUP = {
  timestamp: EXAMPLE_BACKUP_TIMESTAMP,
  files: 3,
  bytes: 732,
  createdBy: EXAMPLE_ADMIN_ID,
  createdByName: 'Demo owner',
  origin: 'demo' as const,
  createdAt: '2026-11-26T12:38:14.434Z',
  lock: null,
};

/** The demo's backup under a compliance lock for six months, as PUT …/lock answers it. */
export const EXAMPLE_LOCKED_BACKUP = {
  ...EXAMPLE_BACKUP,
  lock: {
    mode: 'compliance' as const,
    until: '2027-05-26T00:00:00.000Z',
    legalHold: false,
    lockedBy: EXAMPLE_ADMIN_ID,
    lockedAt: '2026-11-26T12:40:02.118Z',
  },
};

/** prices.csv as the demo's backup holds it: the version a restore of that backup brings back. */
const PRICES_BACKED_UP_SHA256 = 'dfbde56a2f5c5078daef90877bb8113bf211c4055d53d8b3572a6cf47bd399de';

export const EXAMPLE_NONCE = { nonce: '6b082b8a4dda60b6e69b0da3eab0ac3373048876bb956a54', expiresAt: '2026-11-26T12:52:26.000Z' };

export const EXAMPLE_CHANNEL_PAGE = {
  items: [{ id: EXAMPLE_CHANNEL_ID, name: 'demo', archived: false, createdAt: '2026-11-26T12:38:14.187Z' }],
  next: null,
};

export const EXAMPLE_FOLDER_PAGE = {
  items: [
    { name: 'reports', fileCount: 1 },
    { name: 'welcome', fileCount: 2 },
  ],
  next: null,
};

export const EXAMPLE_FILE_PAGE = {
  items: [
    {
      folder: 'welcome',
      filename: 'README.txt',
      size: 518,
      sha256: '64e9ecf27e75df7052b679258b3ff71474fa0478b04c3273a613e98358cb8b30',
      contentType: 'text/plain; charset=utf-8',
      updatedAt: '2026-11-26T12:38:14.385Z',
    },
    EXAMPLE_FILE,
  ],
  next: null,
};

export const EXAMPLE_VERSION_PAGE = {
  items: [
    { id: EXAMPLE_VERSION_ID, kind: 'replaced', timestamp: null, size: 70, sha256: PRICES_BACKED_UP_SHA256, time: EXAMPLE_TIME },
    {
      id: 'bkp_20261126_123814.7021b6f9d8ae64ea',
      kind: 'backup',
      timestamp: EXAMPLE_BACKUP_TIMESTAMP,
      size: 70,
      sha256: PRICES_BACKED_UP_SHA256,
      time: EXAMPLE_BACKUP.createdAt,
    },
  ],
  next: null,
};

export const EXAMPLE_BACKUP_PAGE = { items: [EXAMPLE_BACKUP], next: null };

const NOT_A_RESTORE = { at: null, operationId: null, operation: null, intents: null, operator: null, proposalId: null, change: null };

export const EXAMPLE_AUDIT_PAGE = {
  items: [
    {
      id: 'aud_01m8bxt55c00000bdrkb6c9y1n',
      time: EXAMPLE_TIME,
      adminId: EXAMPLE_ADMIN_ID,
      adminName: 'Demo owner',
      action: 'upload',
      result: 'ok',
      code: null,
      folder: 'welcome',
      filename: 'prices.csv',
      backupTimestamp: null,
      versionId: null,
      sha256: EXAMPLE_SHA256,
      ...NOT_A_RESTORE,
    },
    {
      id: 'aud_01m8bxt55300001dt875698ct0',
      time: '2026-11-26T12:38:14.435Z',
      adminId: EXAMPLE_ADMIN_ID,
      adminName: 'Demo owner',
      action: 'backup',
      result: 'ok',
      code: null,
      folder: null,
      filename: null,
      backupTimestamp: EXAMPLE_BACKUP_TIMESTAMP,
      versionId: null,
      sha256: null,
      ...NOT_A_RESTORE,
    },
  ],
  // A cursor as the service writes them (opaque: pass it back as ?cursor=).
  next: 'WzE3OTU2OTY2OTQ0MzMsImF1ZF8wMW04Ynh0NTUxMDAwMGNiNWMzYnQwMnF2YiJd',
};

export const EXAMPLE_DELETED_PAGE = {
  items: [
    {
      filename: 'old-prices.csv',
      deletedAt: '2026-11-26T14:02:51.318Z',
      deletedBy: EXAMPLE_ADMIN_ID,
      deletedByName: 'Demo owner',
      versionId: 'ver_01m8c2q7kd0000x3b9f1hzw6ta',
      size: 70,
      sha256: PRICES_BACKED_UP_SHA256,
    },
  ],
  next: null,
};

export const EXAMPLE_CHANGES_PAGE = {
  items: [{ folder: 'welcome', filename: 'prices.csv', change: 'changed' as const, size: 88, sha256: EXAMPLE_SHA256 }],
  next: null,
};

/** A dry run of restoring folder welcome from the demo's backup: prices.csv goes back, README.txt is the same. */
export const EXAMPLE_SCOPE_RESTORE = {
  dryRun: true,
  safetyBackup: null,
  changes: [{ folder: 'welcome', filename: 'prices.csv', action: 'replace' as const }],
  unchanged: 1,
};

/** The start of an OpenAPI document: what GET /api/openapi.json answers, cut short. */
export const EXAMPLE_OPENAPI_DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'wallet-admin', version: '0.1.0' },
  paths: { '/healthz': { get: { operationId: 'getHealth', summary: 'The process is up', responses: { 200: { description: 'Up' } } } } },
};

export const EXAMPLE_REFERENCE_PAGE =
  '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>wallet-admin API reference</title>';
