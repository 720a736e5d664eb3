import { type AdminActor, adminAuditEntry, CLI_ACTOR } from '../audit/adminEntries.ts';
import { DEFAULT_CURRENCY } from '../domain/currencies.ts';
import type { RepQuotas } from '../domain/earnings/quotas.ts';
import { periodIdOf } from '../domain/periods.ts';
import { planDocumentHtml } from '../domain/plans/document/html.ts';
import {
  type PlanDocument,
  type PlanDocumentTerms,
  planDocument,
  type QuotaSource,
} from '../domain/plans/document/model.ts';
import { planDocumentPdf } from '../domain/plans/document/pdf.ts';
import { repQuotaSource } from '../domain/plans/document/repQuota.ts';
import { Refusal } from '../domain/refusal.ts';
import { canSeeUser, type Viewer } from '../domain/viewer.ts';
import { renderPdf } from '../lib/pdf/index.ts';
import * as audit from '../repositories/audit.ts';
import * as orgs from '../repositories/orgs.ts';
import * as planSnapshots from '../repositories/planSnapshots.ts';
import * as plans from '../repositories/plans.ts';
import * as repQuotas from '../repositories/repQuotas.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import * as users from '../repositories/users.ts';

/** The rep a document is for. */
interface DocumentRep {
  user_id: string;
  external_id: string;
  display_name: string | null;
}

/** Which version's document: the plan's current version unless a version id is given. */
export interface PlanDocumentRequest {
  /** Who reads: an org (a key, an admin) reads every plan; a rep principal only the plans their reps are assigned to. */
  viewer: Viewer;
  planId: string;
  versionId?: string;
  /**
   * The rep whose document it is: their own quota per period (quota table, ramp) in "Your quota". A rep principal's
   * document is its own rep's without it, and may name only a user it can see; else 404 (a Refusal).
   */
  userId?: string;
  /** Where the rep's quota comes from, given by the caller; absent: the rep's (with a user), else the plan's. */
  quota?: QuotaSource;
  repExternalId?: string;
}

/**
 * Plan documents (docs/plan-documents.md): a plan version's document, generated on request from the version's
 * normalised plan file, as its model, an HTML page or a PDF. Versions never change, so neither does a document, but
 * for the generation time in a PDF's footer.
 */
/** The most characters a term may have. */
export const PLAN_DOCUMENT_TERM_MAX_CHARS = 20000;

export class PlanDocuments {
  readonly #db: Transactor;
  readonly #statements: Transaction;
  readonly #now: () => Date;

  constructor(db: Transactor, options: { now?: () => Date } = {}) {
    this.#db = db;
    this.#statements = db.statements;
    this.#now = options.now ?? (() => new Date());
  }

  /**
   * The document; null when the org has no such plan, the plan no such version, or a rep principal may not see it.
   * A `userId` the viewer may not see, or no user of the org, throws `not_found`.
   */
  async model(request: PlanDocumentRequest): Promise<PlanDocument | null> {
    const { viewer } = request;
    if (viewer.kind === 'rep') {
      const visible = await plans.idsAssignedToAny(this.#statements, viewer.orgId, viewer.visibleUserIds);
      if (!visible.has(request.planId)) return null;
    }
    const rep = await this.#rep(request);
    return this.#build(this.#statements, viewer.orgId, request, rep === null ? null : { rep });
  }

  /**
   * The document of a version, read in the caller's transaction (a version being applied). With `quotas`, the
   * document of a rep with that quota table and start date (docs/plan-documents.md, "Your quota"), for no rep by name.
   */
  modelIn(
    tx: Transaction,
    orgId: string,
    planId: string,
    versionId: string,
    quotas?: RepQuotas,
  ): Promise<PlanDocument | null> {
    return this.#build(tx, orgId, { planId, versionId }, quotas === undefined ? null : { quotas });
  }

  async #build(
    tx: Transaction,
    orgId: string,
    request: Omit<PlanDocumentRequest, 'viewer'>,
    forRep: { rep: DocumentRep } | { quotas: RepQuotas } | null,
  ): Promise<PlanDocument | null> {
    const snapshot = await planSnapshots.snapshot(tx, orgId, request.planId, request.versionId);
    if (!snapshot) return null;
    const versions = await plans.listVersions(tx, orgId, request.planId);
    const version = versions.find((entry) => entry.id === snapshot.version_id);
    if (!version) return null;
    const currency = snapshot.definition.currency ?? (await orgs.defaultCurrency(tx, orgId)) ?? DEFAULT_CURRENCY;
    let quota = request.quota;
    if (quota === undefined && forRep !== null) {
      const quotas =
        'quotas' in forRep
          ? forRep.quotas
          : repQuotas.quotasUnder(
              (await repQuotas.booksOfReps(tx, orgId, [forRep.rep.user_id])).get(forRep.rep.user_id),
              snapshot.plan.id,
            );
      const firstPeriod = periodIdOf(version.created_at.toISOString().slice(0, 10), snapshot.definition.period);
      quota = repQuotaSource(snapshot.definition, quotas, firstPeriod, currency);
    }
    const rep = forRep !== null && 'rep' in forRep ? forRep.rep : undefined;
    const repExternalId = request.repExternalId ?? rep?.external_id;
    const terms = await orgs.planDocumentTerms(tx, orgId);
    // A document for no rep says how many reps have a quota of their own, so it does not call the plan's the same
    // for every rep when it is not.
    const repsWithOwnQuota =
      forRep === null && request.quota === undefined
        ? await repQuotas.repsWithOwnQuota(tx, orgId, snapshot.plan.id)
        : undefined;
    return planDocument({
      plan: snapshot.definition,
      plan_id: snapshot.plan.id,
      version_id: snapshot.version_id,
      version_number: snapshot.version_number,
      applied_at: version.created_at,
      currency,
      won_stage: await orgs.firstWonStage(tx, orgId),
      ...(quota === undefined ? {} : { quota }),
      ...(repExternalId === undefined ? {} : { rep_external_id: repExternalId }),
      ...(rep === undefined ? {} : { rep_display_name: rep.display_name }),
      ...(repsWithOwnQuota === undefined ? {} : { reps_with_own_quota: repsWithOwnQuota }),
      ...(terms === null ? {} : { terms }),
    });
  }

  /** The org's terms of its plan documents (docs/plan-documents.md, "Your company's terms"). */
  async terms(orgId: string): Promise<PlanDocumentTerms> {
    const found = await orgs.planDocumentTerms(this.#statements, orgId);
    if (!found) throw new Refusal('not_found', `no org ${orgId}`);
    return found;
  }

  /**
   * Sets the terms given (a term left out keeps its text; an empty text removes it), audited
   * (`plan_document_terms.updated`, before and after). Documents made from then on carry them: the next version's
   * acceptance documents, the document read now; documents already kept with an acceptance keep the terms they had.
   */
  async updateTerms(
    orgId: string,
    change: Partial<PlanDocumentTerms>,
    actor: AdminActor = CLI_ACTOR,
  ): Promise<PlanDocumentTerms> {
    const cleaned: Partial<PlanDocumentTerms> = {};
    for (const key of ['clawback', 'leaver', 'governing'] as const) {
      const text = change[key];
      if (text === undefined) continue;
      if (typeof text !== 'string') throw new Refusal('invalid_body', `${key}: must be a string`);
      const trimmed = text.replace(/\r\n?/g, '\n').trim();
      if (trimmed.length > PLAN_DOCUMENT_TERM_MAX_CHARS) {
        throw new Refusal('invalid_body', `${key}: at most ${PLAN_DOCUMENT_TERM_MAX_CHARS} characters`);
      }
      cleaned[key] = trimmed;
    }
    return this.#db.run(async (tx) => {
      const before = await orgs.planDocumentTerms(tx, orgId);
      if (!before) throw new Refusal('not_found', `no org ${orgId}`);
      const after = await orgs.setPlanDocumentTerms(tx, orgId, cleaned);
      if (!after) throw new Refusal('not_found', `no org ${orgId}`);
      await audit.insertMany(tx, [
        adminAuditEntry(orgId, 'plan_document_terms.updated', { before: { ...before }, after: { ...after } }, actor),
      ]);
      return after;
    });
  }

  /** The rep the document is for: `userId`, else a rep principal's own rep; none for an org without `userId`. */
  async #rep(request: PlanDocumentRequest): Promise<DocumentRep | null> {
    const { viewer } = request;
    const userId = request.userId ?? (viewer.kind === 'rep' ? viewer.userId : undefined);
    if (userId === undefined) return null;
    const rep = canSeeUser(viewer, userId) ? await users.findRepById(this.#statements, viewer.orgId, userId) : null;
    if (!rep) throw new Refusal('not_found', `no user ${userId}`);
    return rep;
  }

  html(document: PlanDocument): string {
    return planDocumentHtml(document);
  }

  pdf(document: PlanDocument): Promise<Uint8Array> {
    return renderPdf(planDocumentPdf(document, this.#now()));
  }
}
