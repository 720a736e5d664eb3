import { generateApiKey, parseRateLimit, parseScopes } from '../access/apiKeys.ts';
import { type AdminActor, adminAuditEntry, CLI_ACTOR } from '../audit/adminEntries.ts';
import { Refusal } from '../domain/refusal.ts';
import type { ApiKeyRecord } from '../repositories/apiKeys.ts';
import * as apiKeys from '../repositories/apiKeys.ts';
import * as audit from '../repositories/audit.ts';
import * as orgs from '../repositories/orgs.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';

export interface CreatedKey {
  record: ApiKeyRecord;
  /** Shown once; only its digest is stored. */
  rawKey: string;
}

/** Admin operations on API keys; each writes an audit entry. */
export class KeyAdmin {
  readonly #statements: Transaction;

  constructor(db: Transactor) {
    this.#statements = db.statements;
  }

  /** `scopes` and `rateLimit` as people type them (comma-separated; a number), parsed and checked here. */
  async create(
    input: { orgId: string; name: string; scopes: string; rateLimit?: string },
    actor: AdminActor = CLI_ACTOR,
  ): Promise<CreatedKey> {
    const name = input.name.trim();
    if (!name) throw new Refusal('invalid_body', 'the key needs a non-empty --name');
    const scopes = parseScopes(input.scopes);
    if ('error' in scopes) throw new Refusal('invalid_body', scopes.error);
    const rate = parseRateLimit(input.rateLimit);
    if ('error' in rate) throw new Refusal('invalid_body', rate.error);
    await this.requireOrg(input.orgId);
    const generated = generateApiKey();
    const record = await apiKeys.create(this.#statements, {
      orgId: input.orgId,
      name,
      scopes: scopes.scopes,
      rateLimitPerMinute: rate.limit,
      digest: generated.digest,
      displayPrefix: generated.displayPrefix,
    });
    await this.recordAdminAction(input.orgId, 'key.created', { key_id: record.id, name, scopes: scopes.scopes }, actor);
    return { record, rawKey: generated.raw };
  }

  async list(orgId: string): Promise<ApiKeyRecord[]> {
    await this.requireOrg(orgId);
    return apiKeys.listForOrg(this.#statements, orgId);
  }

  /** Idempotent: `changed` is false when the key was revoked already (its first revocation time stays). */
  async revoke(
    orgId: string,
    keyId: string,
    actor: AdminActor = CLI_ACTOR,
  ): Promise<{ record: ApiKeyRecord; changed: boolean }> {
    await this.requireOrg(orgId);
    const { record, changed } = await apiKeys.revoke(this.#statements, orgId, keyId, new Date());
    if (!record) throw new Refusal('not_found', `org ${orgId} has no key ${keyId}`);
    if (changed) await this.recordAdminAction(orgId, 'key.revoked', { key_id: keyId }, actor);
    return { record, changed };
  }

  private async requireOrg(orgId: string): Promise<void> {
    if (!(await orgs.find(this.#statements, orgId))) throw new Refusal('not_found', `no org ${orgId}`);
  }

  private async recordAdminAction(
    orgId: string,
    action: string,
    details: Record<string, unknown>,
    actor: AdminActor,
  ): Promise<void> {
    await audit.insertMany(this.#statements, [adminAuditEntry(orgId, action, details, actor)]);
  }
}
