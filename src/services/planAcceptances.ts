import { type AdminActor, adminAuditEntry, CLI_ACTOR } from '../audit/adminEntries.ts';
import { keysetCursor, keysetFingerprint } from '../domain/lists/keysetCursor.ts';
import type { PlanDocument } from '../domain/plans/document/model.ts';
import { Refusal } from '../domain/refusal.ts';
import type { Viewer } from '../domain/viewer.ts';
import { newId } from '../lib/ids.ts';
import * as audit from '../repositories/audit.ts';
import type { PlanAcceptanceRecord, PlanAcceptanceState } from '../repositories/planAcceptances.ts';
import * as planAcceptances from '../repositories/planAcceptances.ts';
import * as planSnapshots from '../repositories/planSnapshots.ts';
import * as plans from '../repositories/plans.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import { toWirePlanAcceptance } from '../wire/planAcceptances.ts';
import { requestAcceptancesOfVersion } from './acceptanceRequests.ts';
import type { PlanArchived, PlanChangeListener, PlanVersionApplied } from './planChanges.ts';
import type { PlanDocuments } from './planDocuments.ts';
import { enqueueWebhookEvent } from './webhookOutbox.ts';

// Plan acceptance (docs/plan-acceptance.md): when a plan version comes into force, every rep assigned to it is asked
// to accept it, with the document generated from that version kept as they are shown it; the rep accepts by typing
// their name (a rep token: the portal or an integrator's intranet); admins see who has and has not accepted and
// remind. Each step is one transaction with its audit entry and its webhook.

/** An admin may remind a rep of one acceptance at most this often. */
export const REMIND_INTERVAL_MS = 60 * 60 * 1000;

export const PLAN_ACCEPTANCE_CURSOR = keysetCursor({ idPrefix: 'pac', timeMember: 'c' });

/** The request an acceptance came in: recorded with it and in its audit entry. */
export interface AcceptanceRequest {
  requestId: string | null;
  method: string;
  route: string;
  clientIp: string | null;
  userAgent: string | null;
}

/** The rep who accepts, as their rep token names them. */
export interface AcceptingRep {
  orgId: string;
  userId: string;
  tokenId: string;
}

export interface PlanAcceptanceListQuery {
  filters: { userId?: string; planId?: string; state?: PlanAcceptanceState };
  limit: number;
  cursor?: string;
}

export interface PlanVersionAcceptances {
  plan_id: string;
  plan_name: string;
  plan_version_id: string;
  plan_version: number;
  acceptances: PlanAcceptanceRecord[];
}

/** Names compared as people type them: case, surrounding and repeated whitespace aside. */
export function sameName(typed: string, name: string): boolean {
  const fold = (value: string) => value.normalize('NFKC').trim().replace(/\s+/g, ' ').toLocaleLowerCase('en');
  return fold(typed) === fold(name);
}

export class PlanAcceptances {
  readonly #db: Transactor;
  readonly #statements: Transaction;
  readonly #documents: PlanDocuments;
  readonly #now: () => Date;

  constructor(db: Transactor, documents: PlanDocuments, options: { now?: () => Date } = {}) {
    this.#db = db;
    this.#statements = db.statements;
    this.#documents = documents;
    this.#now = options.now ?? (() => new Date());
  }

  /**
   * The plan-change listener that asks for acceptances: inside the transaction of a plan apply, a new version (a
   * new plan's first included) asks every rep it is assigned to, as `actor` applied it.
   */
  listener(actor: AdminActor = CLI_ACTOR): PlanChangeListener {
    return {
      onPlanVersionApplied: async (tx: Transaction, change: PlanVersionApplied) => {
        if (!change.newVersion) return;
        await requestAcceptancesOfVersion(tx, this.#documents, this.#now, change, actor);
      },
      onPlanArchived: async (_tx: Transaction, _change: PlanArchived) => {},
    };
  }

  /**
   * Asks the reps assigned to the plan's current version who were not asked yet; the number asked. Null for an
   * unknown plan. Reps who come to be after a version was applied are asked as they are created
   * (newRepAcceptances.ts); this is for those it could not ask: a rep created while the version was being applied,
   * or after a version applied before its new-rep document was kept (which this keeps, so later reps are asked).
   */
  async requestCurrent(orgId: string, planId: string, actor: AdminActor = CLI_ACTOR): Promise<number | null> {
    return this.#db.run(async (tx) => {
      const plan = await plans.find(tx, orgId, planId);
      if (!plan?.current_version_id) return null;
      const versions = await plans.listVersions(tx, orgId, planId);
      const current = versions.find((version) => version.id === plan.current_version_id);
      if (!current) return null;
      return requestAcceptancesOfVersion(
        tx,
        this.#documents,
        this.#now,
        { orgId, planId, versionId: current.id, versionNumber: current.number },
        actor,
      );
    });
  }

  /**
   * Inside an admin's transaction that created reps (user ids) and gave them their quota tables, start dates or
   * managers: asks each to accept the current version of every active plan assigned to them, with their own
   * document, as an apply would have. The number asked.
   */
  async requestOfNewRepsIn(
    tx: Transaction,
    orgId: string,
    userIds: readonly string[],
    actor: AdminActor = CLI_ACTOR,
  ): Promise<number> {
    if (userIds.length === 0) return 0;
    let asked = 0;
    for (const plan of await plans.listActive(tx, orgId)) {
      const versions = await plans.listVersions(tx, orgId, plan.id);
      const current = versions.find((version) => version.id === plan.current_version_id);
      if (!current) continue;
      asked += await requestAcceptancesOfVersion(
        tx,
        this.#documents,
        this.#now,
        { orgId, planId: plan.id, versionId: current.id, versionNumber: current.number },
        actor,
        new Set(userIds),
      );
    }
    return asked;
  }

  /** One acceptance the viewer may see; null otherwise (or when there is none). */
  async get(viewer: Viewer, id: string): Promise<PlanAcceptanceRecord | null> {
    const acceptance = await planAcceptances.find(this.#statements, viewer.orgId, id);
    if (!acceptance || !visible(viewer, acceptance.user_id)) return null;
    return acceptance;
  }

  /** The document kept with an acceptance the viewer may see: its JSON text and its model. */
  async document(viewer: Viewer, id: string): Promise<{ text: string; model: PlanDocument } | null> {
    const acceptance = await this.get(viewer, id);
    if (!acceptance) return null;
    const text = await planAcceptances.documentOf(this.#statements, viewer.orgId, id);
    if (text === null) return null;
    return { text, model: JSON.parse(text) as PlanDocument };
  }

  /** A page of the acceptances the viewer may see, newest request first. */
  async list(
    viewer: Viewer,
    query: PlanAcceptanceListQuery,
  ): Promise<{ acceptances: PlanAcceptanceRecord[]; nextCursor: string | null }> {
    const { filters } = query;
    const fingerprint = keysetFingerprint(viewer.orgId, {
      user_id: filters.userId ?? null,
      plan_id: filters.planId ?? null,
      state: filters.state ?? null,
    });
    const position = query.cursor === undefined ? null : PLAN_ACCEPTANCE_CURSOR.decode(query.cursor, fingerprint);
    const rows = await planAcceptances.listPage(
      this.#statements,
      viewer.orgId,
      {
        ...filters,
        ...(viewer.kind === 'rep' ? { userIds: viewer.visibleUserIds } : {}),
      },
      position,
      query.limit + 1,
    );
    const page = PLAN_ACCEPTANCE_CURSOR.page(rows, query.limit, fingerprint, (row) => ({
      at: row.requested_at,
      id: row.id,
    }));
    return { acceptances: page.items, nextCursor: page.nextCursor };
  }

  /**
   * The rep accepts the latest version of the plan asked of them (or `planVersionId`) by typing their name. A
   * version accepted already is answered again, unchanged. Sends `plan.accepted`; audited with the rep as actor.
   */
  async accept(
    rep: AcceptingRep,
    planId: string,
    input: { typedName: string; planVersionId?: string },
    request: AcceptanceRequest,
  ): Promise<{ acceptance: PlanAcceptanceRecord; changed: boolean }> {
    const { orgId, userId } = rep;
    return this.#db.run(async (tx) => {
      const plan = await plans.find(tx, orgId, planId);
      if (!plan) throw new Refusal('not_found', `no plan ${planId}`);
      if (input.planVersionId !== undefined) {
        const versions = await plans.listVersions(tx, orgId, planId);
        if (!versions.some((version) => version.id === input.planVersionId)) {
          throw new Refusal('not_found', `no version ${input.planVersionId} of plan ${planId}`);
        }
      }
      const latest = await planAcceptances.latestForRep(tx, orgId, userId, planId, input.planVersionId);
      if (!latest) {
        const assigned = await plans.idsAssignedToAny(tx, orgId, [userId]);
        if (!assigned.has(planId)) throw new Refusal('not_found', `no plan ${planId}`);
        throw new Refusal(
          'invalid_state',
          input.planVersionId === undefined
            ? `no acceptance of plan ${planId} was asked of you`
            : `no acceptance of version ${input.planVersionId} of plan ${planId} was asked of you`,
        );
      }
      const acceptance = (await planAcceptances.lockForChange(tx, orgId, latest.id)) as PlanAcceptanceRecord;
      if (acceptance.state === 'accepted') return { acceptance, changed: false };
      if (!sameName(input.typedName, acceptance.user_name)) {
        throw new Refusal(
          'typed_name_mismatch',
          'typed_name: type your full name as your company knows you (the name on your profile)',
        );
      }
      const at = this.#now();
      await planAcceptances.markAccepted(tx, orgId, acceptance.id, {
        at,
        typedName: input.typedName.trim(),
        ipAddress: request.clientIp,
        userAgent: request.userAgent,
        repTokenId: rep.tokenId,
      });
      const accepted = (await planAcceptances.find(tx, orgId, acceptance.id)) as PlanAcceptanceRecord;
      await audit.insertMany(tx, [
        {
          id: newId('aud'),
          org_id: orgId,
          occurred_at: at,
          action: 'plan.accepted',
          actor_type: 'rep',
          actor: userId,
          method: request.method,
          route: request.route,
          request_id: request.requestId,
          client_ip: request.clientIp,
          user_agent: request.userAgent,
          details: {
            plan_acceptance_id: accepted.id,
            plan_id: planId,
            plan_version: accepted.plan_version,
            document_sha256: accepted.document_sha256,
            rep_token_id: rep.tokenId,
          },
        },
      ]);
      await enqueueWebhookEvent(
        tx,
        orgId,
        'plan.accepted',
        { plan_acceptance: toWirePlanAcceptance(accepted) },
        { timestamp: at },
      );
      return { acceptance: accepted, changed: true };
    });
  }

  /**
   * Who was asked to accept the version (the plan's current one when none is named), and who has; null for an
   * unknown plan or a version not of it.
   */
  async ofVersion(orgId: string, planId: string, versionId?: string): Promise<PlanVersionAcceptances | null> {
    const snapshot = await planSnapshots.snapshot(this.#statements, orgId, planId, versionId);
    if (!snapshot || (versionId !== undefined && snapshot.version_id !== versionId)) return null;
    return {
      plan_id: planId,
      plan_name: snapshot.definition.name,
      plan_version_id: snapshot.version_id,
      plan_version: snapshot.version_number,
      acceptances: await planAcceptances.ofVersion(this.#statements, orgId, snapshot.version_id),
    };
  }

  /**
   * Asks the rep again: `plan.acceptance_requested` again, `reminded_at` recorded, audited. At most once an hour
   * per acceptance (`reminded_recently`); an accepted one is `invalid_state`.
   */
  async remind(orgId: string, id: string, actor: AdminActor = CLI_ACTOR): Promise<PlanAcceptanceRecord> {
    return this.#db.run(async (tx) => {
      const acceptance = await planAcceptances.lockForChange(tx, orgId, id);
      if (!acceptance) throw new Refusal('not_found', `no plan acceptance ${id}`);
      if (acceptance.state === 'accepted') {
        throw new Refusal(
          'invalid_state',
          `${acceptance.user_name} accepted version ${acceptance.plan_version} already`,
        );
      }
      const at = this.#now();
      const last = acceptance.reminded_at ?? acceptance.requested_at;
      const wait = last.getTime() + REMIND_INTERVAL_MS - at.getTime();
      if (acceptance.reminded_at !== null && wait > 0) {
        const seconds = Math.max(1, Math.ceil(wait / 1000));
        throw new Refusal(
          'reminded_recently',
          `${acceptance.user_name} was reminded at ${acceptance.reminded_at.toISOString()}; remind again in ${seconds} s`,
          { retryAfterSeconds: seconds, headers: { 'Retry-After': String(seconds) } },
        );
      }
      await planAcceptances.markReminded(tx, orgId, id, at);
      const reminded = (await planAcceptances.find(tx, orgId, id)) as PlanAcceptanceRecord;
      await audit.insertMany(tx, [
        adminAuditEntry(
          orgId,
          'plan_acceptance.reminded',
          { plan_acceptance_id: id, user_id: reminded.user_id, plan_id: reminded.plan_id },
          actor,
        ),
      ]);
      await enqueueWebhookEvent(
        tx,
        orgId,
        'plan.acceptance_requested',
        { plan_acceptance: toWirePlanAcceptance(reminded) },
        { timestamp: at },
      );
      return reminded;
    });
  }
}

function visible(viewer: Viewer, userId: string): boolean {
  return viewer.kind === 'org' || viewer.visibleUserIds.includes(userId);
}
