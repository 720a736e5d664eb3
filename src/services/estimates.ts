import { randomUUID } from 'node:crypto';
import type { components } from '../../generated/openapi.ts';
import { parseDealEvent } from '../domain/deals/event.ts';
import { compareLedgers } from '../domain/earnings/estimate.ts';
import { Refusal } from '../domain/refusal.ts';
import { canSeeUser, type Viewer } from '../domain/viewer.ts';
import * as deals from '../repositories/deals.ts';
import * as earningsEstimates from '../repositories/earningsEstimates.ts';
import * as orgs from '../repositories/orgs.ts';
import * as users from '../repositories/users.ts';
import { toWireDeal } from '../wire/deals.ts';
import { withServedTraces } from './earnings/servedTraces.ts';
import type { DealIngestion } from './ingestion.ts';

type Estimate = components['schemas']['Estimate'];
export type EstimateInput = components['schemas']['EstimateRequest'];

/**
 * "If this deal closed won on this date, what would each line pay?" The deal event is built as a CRM would send
 * it (the deal's state changes, the org's first won stage, the close date) and rehearsed by the ingestion
 * pipeline in a transaction that is rolled back: the engine, the locks and the ledger rules are the real ones,
 * and nothing stays. The rows of the reps the event can touch are read before and after it.
 */
export class DealEstimator {
  readonly #ingestion: DealIngestion;

  constructor(ingestion: DealIngestion) {
    this.#ingestion = ingestion;
  }

  /**
   * Refuses an unknown `deal_id` (`not_found`), both ids at once or a deal without an owner (`invalid_body`). A rep
   * principal estimates only the open deals owned by a rep they may see, or a hypothetical deal of their own; it
   * cannot move a deal to a rep it may not see: anything else is `not_found`, as another org's deal would be.
   */
  async estimate(viewer: Viewer, keyId: string | null, input: EstimateInput): Promise<Estimate> {
    const { orgId } = viewer;
    if (input.deal_id !== undefined && input.external_id !== undefined) {
      throw new Refusal('invalid_body', 'external_id: give deal_id or external_id, not both');
    }
    return this.#ingestion.rehearse(orgId, keyId, async (tx, apply) => {
      const existing =
        input.deal_id !== undefined
          ? await deals.findById(tx, orgId, input.deal_id)
          : input.external_id !== undefined
            ? await deals.findByExternalId(tx, orgId, input.external_id)
            : null;
      const outOfSight = existing && (!canSeeUser(viewer, existing.user_id) || existing.status !== 'open');
      if (viewer.kind === 'rep' && outOfSight) {
        throw new Refusal('not_found', `no open deal ${input.deal_id ?? input.external_id}`);
      }
      if (input.deal_id !== undefined && !existing) throw new Refusal('not_found', `no deal ${input.deal_id}`);
      const changes: Record<string, unknown> = { ...input.state };
      const owner = 'owner_external_id' in changes ? changes.owner_external_id : existing?.state.owner_external_id;
      if (typeof owner !== 'string') {
        throw new Refusal(
          'invalid_body',
          'state.owner_external_id: the deal needs an owner to earn anything; name the rep',
        );
      }
      if (viewer.kind === 'rep') {
        const rep = await users.findRepByExternalId(tx, orgId, owner);
        const allowed = existing ? canSeeUser(viewer, rep?.id) : rep?.id === viewer.userId;
        if (!allowed) throw new Refusal('not_found', `no rep ${owner}`);
      }
      const body = {
        external_id: existing?.external_id ?? input.external_id ?? `estimate-${randomUUID()}`,
        state: { ...changes, stage: await orgs.firstWonStage(tx, orgId), close_date: input.close_date },
      };
      const event = parseDealEvent(body);

      const ownerBefore = (await users.findRepByExternalId(tx, orgId, owner))?.id ?? null;
      const repsBefore = [existing?.user_id, ownerBefore].filter((id): id is string => typeof id === 'string');
      const before = await earningsEstimates.snapshotRowsOfReps(tx, orgId, repsBefore);
      const ids = await apply(event, body);
      const ownerAfter = (await users.findRepByExternalId(tx, orgId, owner))?.id ?? null;
      const reps = [...new Set([...repsBefore, ...(ownerAfter ? [ownerAfter] : [])])];
      const after = await earningsEstimates.snapshotRowsOfReps(tx, orgId, reps);
      const known = new Set(before.map((row) => row.id));
      const written = await withServedTraces(
        tx,
        orgId,
        await earningsEstimates.writtenRows(
          tx,
          orgId,
          after.filter((row) => !known.has(row.id)).map((row) => row.id),
        ),
      );
      const deal = await deals.findById(tx, orgId, ids.deal_id);
      if (!deal) throw new Error(`the rehearsed deal ${ids.deal_id} of org ${orgId} is not visible in its transaction`);
      const comparison = compareLedgers({
        before,
        after,
        // The rehearsed event is rolled back: a trace must not name it as its cause.
        written: written.map(
          ({ trace: { cause: _rehearsed, ...trace }, plan_id: _plan, rule_chip_id: _chip, ...row }) => ({
            ...row,
            trace,
          }),
        ),
        ownerExternalId: owner,
        hypotheticalDealId: existing ? null : deal.id,
      });
      return {
        deal: {
          id: existing ? deal.id : null,
          external_id: existing || input.external_id !== undefined ? deal.external_id : null,
          exists: existing !== null,
          state: toWireDeal(deal).state,
          status: deal.status,
        },
        user_external_id: owner,
        ...comparison,
      };
    });
  }
}
