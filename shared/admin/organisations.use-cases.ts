// Organisations (the migration teams' clients), the import suppliers each may use, and their API keys.
// A key is shown once, when it is made; only its SHA-256 digest is stored, and listings show only its
// first characters.
import { digest, generateApiKey, keyPrefix } from '../auth/secrets';
import type { Database, DbClient } from '../platform/db';
import { ConflictError, NotFoundError } from '../platform/errors';
import { formatDateTime } from '../platform/fields';
import { parseOrThrow } from '../platform/validation';
import {
  ApiKeyCreate,
  ApiKeyList,
  ApiKeyRevoke,
  OrganisationCreate,
  OrganisationRef,
  OrganisationSuppliers,
} from './admin.schemas';
import * as repo from './organisations.repository';
import { checkSupplierReferences } from './suppliers.use-cases';

type OrganisationRow = NonNullable<Awaited<ReturnType<typeof repo.findOrganisationByName>>>;
type ApiKeyRow = Awaited<ReturnType<typeof repo.insertApiKey>>;

function organisationView(o: OrganisationRow) {
  return {
    id: o.id,
    name: o.name,
    suppliers: o.suppliers.map((s) => s.supplierCode),
    active_api_keys: o._count.apiKeys,
    created_at: formatDateTime(o.createdAt),
    disabled_at: o.disabledAt ? formatDateTime(o.disabledAt) : null,
  };
}

function apiKeyView(k: ApiKeyRow) {
  return {
    id: k.id,
    organisation: k.organisation.name,
    prefix: k.prefix,
    label: k.label,
    created_at: formatDateTime(k.createdAt),
    revoked_at: k.revokedAt ? formatDateTime(k.revokedAt) : null,
  };
}

async function findOrganisation(db: DbClient, name: string): Promise<OrganisationRow> {
  const org = await repo.findOrganisationByName(db, name);
  if (!org) throw new NotFoundError('organisation_not_found', `No organisation named "${name}".`);
  return org;
}

const referencesOf = (codes: string[]) => codes.map((code, i) => ({ code, attr: `suppliers.${i}` }));

/** Creates the organisation with its suppliers and its first API key, printed this once. */
export async function createOrganisation(db: Database, input: unknown) {
  const o = parseOrThrow(OrganisationCreate, input);
  return db.prisma.$transaction(async (tx) => {
    await checkSupplierReferences(tx, referencesOf(o.suppliers));
    const id = await repo.insertOrganisationIfAbsent(tx, o.name);
    if (id === undefined)
      throw new ConflictError('organisation_already_exists', `Organisation "${o.name}" already exists.`);
    await repo.addOrganisationSuppliers(tx, id, o.suppliers);
    const key = await issueApiKey(tx, id, o.label);
    return { ...organisationView(await findOrganisation(tx, o.name)), api_key_id: key.id, api_key: key.api_key };
  });
}

export async function assignSuppliers(db: Database, input: unknown) {
  const a = parseOrThrow(OrganisationSuppliers, input);
  return db.prisma.$transaction(async (tx) => {
    const org = await findOrganisation(tx, a.organisation);
    await checkSupplierReferences(tx, referencesOf(a.suppliers));
    await repo.addOrganisationSuppliers(tx, org.id, a.suppliers);
    return organisationView(await findOrganisation(tx, a.organisation));
  });
}

/** Unassigning a supplier the organisation does not have is a no-op. */
export async function unassignSuppliers(db: Database, input: unknown) {
  const a = parseOrThrow(OrganisationSuppliers, input);
  return db.prisma.$transaction(async (tx) => {
    const org = await findOrganisation(tx, a.organisation);
    await repo.removeOrganisationSuppliers(tx, org.id, a.suppliers);
    return organisationView(await findOrganisation(tx, a.organisation));
  });
}

/**
 * The emergency stop of one organisation: from now on it obtains no token, and every API process
 * refuses the tokens it holds within TOKEN_REVOCATION_REFRESH_MS. Its keys and refresh tokens are kept,
 * so `enableOrganisation` gives it back its access as it was; revoke a key to end that key for good.
 */
export async function disableOrganisation(db: Database, input: unknown, now: Date = new Date()) {
  return setDisabled(db, input, now);
}

export async function enableOrganisation(db: Database, input: unknown) {
  return setDisabled(db, input, null);
}

async function setDisabled(db: Database, input: unknown, at: Date | null) {
  const { organisation } = parseOrThrow(OrganisationRef, input);
  return db.prisma.$transaction(async (tx) => {
    const org = await findOrganisation(tx, organisation);
    await repo.setOrganisationDisabled(tx, org.id, at);
    return organisationView(await findOrganisation(tx, organisation));
  });
}

export async function listOrganisations(db: Database) {
  return (await repo.listOrganisations(db.prisma)).map(organisationView);
}

/** Stores a new key for the organisation: `apiKey` when given (already validated), else a generated one. */
export async function issueApiKey(tx: DbClient, organisationId: number, label = '', apiKey = generateApiKey()) {
  const row = await repo.insertApiKey(tx, { organisationId, prefix: keyPrefix(apiKey), hash: digest(apiKey), label });
  return { ...apiKeyView(row), api_key: apiKey };
}

export async function createApiKey(db: Database, input: unknown) {
  const k = parseOrThrow(ApiKeyCreate, input);
  const org = await findOrganisation(db.prisma, k.organisation);
  return issueApiKey(db.prisma, org.id, k.label);
}

export async function listApiKeys(db: Database, input: unknown) {
  const { organisation } = parseOrThrow(ApiKeyList, input);
  const org = organisation === undefined ? undefined : await findOrganisation(db.prisma, organisation);
  return (await repo.listApiKeys(db.prisma, org?.id)).map(apiKeyView);
}

/**
 * Revokes the key (revoking it again changes nothing) and every live refresh token of the families it
 * started, atomically: updating the key row waits for every sign-in or refresh holding it, so the
 * token revocation that follows sees all they issued, and none can start after. Access tokens it
 * issued are refused by every API process within TOKEN_REVOCATION_REFRESH_MS (api/auth/revocation-check.ts).
 */
export async function revokeApiKey(db: Database, input: unknown, now: Date = new Date()) {
  const { id } = parseOrThrow(ApiKeyRevoke, input);
  return db.prisma.$transaction(async (tx) => {
    const key = await repo.findApiKey(tx, id);
    if (!key) throw new NotFoundError('api_key_not_found', `No API key with id ${id}.`);
    const revoked = await repo.revokeApiKey(tx, id, now);
    const revokedRefreshTokens = revoked ? await repo.revokeRefreshTokensOf(tx, id, now) : 0;
    return { ...apiKeyView((await repo.findApiKey(tx, id))!), revoked_refresh_tokens: revokedRefreshTokens };
  });
}
