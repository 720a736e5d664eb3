import type { Database } from '../db/prisma.ts';
import { DEFAULT_CURRENCY } from '../domain/currencies.ts';
import { planDocumentHtml } from '../domain/plans/document/html.ts';
import { type PlanDocument, planDocument, type QuotaSource } from '../domain/plans/document/model.ts';
import { planDocumentPdf } from '../domain/plans/document/pdf.ts';
import type { Viewer } from '../domain/viewer.ts';
import { renderPdf } from '../lib/pdf/index.ts';
import * as orgs from '../repositories/orgs.ts';
import * as plans from '../repositories/plans.ts';
import { databaseStatements, type Transaction } from '../repositories/transaction.ts';

/** Which version's document: the plan's current version unless a version id is given. */
export interface PlanDocumentRequest {
  /** Who reads: an org (a key, an admin) reads every plan; a rep principal only the plans their reps are assigned to. */
  viewer: Viewer;
  planId: string;
  versionId?: string;
  /** Where the rep's quota comes from (a quota table, a ramp); absent: the plan's own quota. */
  quota?: QuotaSource;
  repExternalId?: string;
}

/**
 * Plan documents (docs/plan-documents.md): a plan version's document, generated on request from the version's
 * normalised plan file, as its model, an HTML page or a PDF. Versions never change, so neither does a document, but
 * for the generation time in a PDF's footer.
 */
export class PlanDocuments {
  readonly #statements: Transaction;
  readonly #now: () => Date;

  constructor(db: Database, options: { now?: () => Date } = {}) {
    this.#statements = databaseStatements(db);
    this.#now = options.now ?? (() => new Date());
  }

  /** The document; null when the org has no such plan, the plan no such version, or a rep principal may not see it. */
  async model(request: PlanDocumentRequest): Promise<PlanDocument | null> {
    const { viewer } = request;
    if (viewer.kind === 'rep') {
      const visible = await plans.idsAssignedToAny(this.#statements, viewer.orgId, viewer.visibleUserIds);
      if (!visible.has(request.planId)) return null;
    }
    return this.#build(this.#statements, viewer.orgId, request);
  }

  /** The document of a version, read in the caller's transaction (a version being applied). */
  modelIn(tx: Transaction, orgId: string, planId: string, versionId: string): Promise<PlanDocument | null> {
    return this.#build(tx, orgId, { planId, versionId });
  }

  async #build(
    tx: Transaction,
    orgId: string,
    request: Omit<PlanDocumentRequest, 'viewer'>,
  ): Promise<PlanDocument | null> {
    const snapshot = await plans.snapshot(tx, orgId, request.planId, request.versionId);
    if (!snapshot) return null;
    const versions = await plans.listVersions(tx, orgId, request.planId);
    const version = versions.find((entry) => entry.id === snapshot.version_id);
    if (!version) return null;
    const currency = snapshot.definition.currency ?? (await orgs.defaultCurrency(tx, orgId)) ?? DEFAULT_CURRENCY;
    return planDocument({
      plan: snapshot.definition,
      plan_id: snapshot.plan.id,
      version_id: snapshot.version_id,
      version_number: snapshot.version_number,
      applied_at: version.created_at,
      currency,
      won_stage: await orgs.firstWonStage(tx, orgId),
      ...(request.quota === undefined ? {} : { quota: request.quota }),
      ...(request.repExternalId === undefined ? {} : { rep_external_id: request.repExternalId }),
    });
  }

  html(document: PlanDocument): string {
    return planDocumentHtml(document);
  }

  pdf(document: PlanDocument): Promise<Uint8Array> {
    return renderPdf(planDocumentPdf(document, this.#now()));
  }
}
