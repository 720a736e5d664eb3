import { BUILT_IN_MAPPINGS, type Mapping } from '../imports/mapping.ts';
import type { Cell } from '../imports/recordMapper.ts';

// Salesforce as its public REST API describes it, for the connector: which Opportunity fields are read (those of the
// `salesforce-api` import mapping that the org's Opportunity has, as its describe lists them), the SOQL that pages
// them, how an Opportunity record becomes a record of the import mapping model, which stages are won and lost (the
// OpportunityStage metadata's `IsWon` / `IsClosed`), and the dedup keys of a record's versions.

/** The fields every read needs, whatever the mapping: the record's id, version and deletion. */
const ALWAYS = ['Id', 'SystemModstamp', 'IsDeleted'];

/** The Opportunity fields to select: the mapping's sources the org's Opportunity has (`CurrencyIsoCode` only in multi-currency orgs). */
export function opportunityFields(mapping: Mapping, described: ReadonlySet<string>): string[] {
  const sources = [
    mapping.id,
    mapping.stage,
    mapping.amount,
    mapping.close_date,
    mapping.owner,
    mapping.currency,
    mapping.occurred_at,
    mapping.won,
    mapping.closed,
    mapping.deleted,
  ];
  const named = [
    ...ALWAYS,
    ...sources.flatMap((source) => (source === undefined ? [] : typeof source === 'string' ? [source] : source)),
    ...Object.values(mapping.custom).flatMap((spec) => (typeof spec.column === 'string' ? [spec.column] : spec.column)),
  ];
  return [...new Set(named)].filter((name) => ALWAYS.includes(name) || described.has(name));
}

/** A SOQL datetime literal (unquoted, UTC). */
export function soqlDateTime(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A SOQL string literal: backslashes and single quotes escaped. */
function soqlString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** Every Opportunity (deleted ones too, read with `queryAll`), or those changed since a time, oldest change first. */
export function opportunitiesQuery(fields: readonly string[], since: Date | null): string {
  const where = since === null ? '' : ` WHERE SystemModstamp >= ${soqlDateTime(since)}`;
  return `SELECT ${fields.join(', ')} FROM Opportunity${where} ORDER BY SystemModstamp, Id`;
}

/** The Opportunities of these ids as they are now. */
export function opportunitiesByIdQuery(fields: readonly string[], ids: readonly string[]): string {
  return `SELECT ${fields.join(', ')} FROM Opportunity WHERE Id IN (${ids.map(soqlString).join(', ')})`;
}

export const STAGES_QUERY =
  'SELECT ApiName, MasterLabel, IsWon, IsClosed, IsActive FROM OpportunityStage ORDER BY SortOrder';
export const USERS_QUERY = 'SELECT Id, Email FROM User ORDER BY Id';
export const CORPORATE_CURRENCY_QUERY = 'SELECT DefaultCurrencyIsoCode FROM Organization';

/** A row of OpportunityStage, the metadata of the org's stage picklist. */
export interface OpportunityStage {
  ApiName: string;
  MasterLabel: string;
  IsWon: boolean;
  IsClosed: boolean;
}

/** Won: `IsWon`. Lost: `IsClosed` and not `IsWon`. Every other stage is an open deal. */
export function wonAndLost(stages: readonly OpportunityStage[]): {
  won: OpportunityStage[];
  lost: OpportunityStage[];
} {
  return {
    won: stages.filter((stage) => stage.IsWon),
    lost: stages.filter((stage) => stage.IsClosed && !stage.IsWon),
  };
}

/**
 * The `salesforce-api` mapping with the org's won and lost stages (by API name, as `StageName` carries them). The
 * record's own `IsWon` / `IsClosed` decide where it has them; the stages list what the preview shows.
 */
export function orgMapping(stages: readonly OpportunityStage[]): Mapping {
  const base = BUILT_IN_MAPPINGS['salesforce-api'] as Mapping;
  const { won, lost } = wonAndLost(stages);
  return { ...base, won_stages: won.map((stage) => stage.ApiName), lost_stages: lost.map((stage) => stage.ApiName) };
}

/** An Opportunity as the REST API returns it (`attributes` aside). */
export type OpportunityRecord = Record<string, unknown> & { Id: string };

const DATE_TIMES = new Set(['SystemModstamp', 'LastModifiedDate']);

/** Salesforce writes instants as `2026-05-01T09:10:00.000+0000`: as a time, or NaN. */
export function instantOf(value: unknown): number {
  if (typeof value !== 'string') return Number.NaN;
  return Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
}

/**
 * The record as a record of the mapping model: its field names as the header, its values as cells. Instants become
 * times, the close date its UTC day, and the owner id the rep it maps to (`repOfOwner`).
 */
export function opportunityCells(
  record: OpportunityRecord,
  repOfOwner: (userId: string) => string,
): { header: string[]; cells: Cell[] } {
  const header: string[] = [];
  const cells: Cell[] = [];
  for (const [name, value] of Object.entries(record)) {
    if (name === 'attributes') continue;
    header.push(name);
    if (value === null || value === undefined || value === '') cells.push(undefined);
    else if (DATE_TIMES.has(name) && !Number.isNaN(instantOf(value))) cells.push(new Date(instantOf(value)));
    else if (name === 'CloseDate' && typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)) {
      cells.push(new Date(`${value}T00:00:00Z`));
    } else if (name === 'OwnerId' && typeof value === 'string') cells.push(repOfOwner(value));
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') cells.push(value);
    else cells.push(JSON.stringify(value));
  }
  return { header, cells };
}

/** The dedup key of a record's version: the Salesforce org, the Opportunity and its `SystemModstamp`. */
export function versionKey(orgId: string, recordId: string, modstamp: unknown): string {
  const at = instantOf(modstamp);
  return `salesforce:${orgId}:${recordId}:${Number.isNaN(at) ? 'unknown' : at}`;
}

export function deletionKey(orgId: string, recordId: string): string {
  return `salesforce:${orgId}:${recordId}:deleted`;
}

/** The Salesforce org an identity URL (`…/id/<org id>/<user id>`, the token response's `id`) names. */
export function orgIdOf(identityUrl: unknown): string | null {
  if (typeof identityUrl !== 'string') return null;
  const match = /\/id\/(00D[0-9A-Za-z]{12,15})\/[0-9A-Za-z]{15,18}\/?$/.exec(identityUrl);
  return match ? (match[1] as string) : null;
}

/** The JWT bearer flow's audience: the sandbox login for a sandbox, else production's (Salesforce's rule). */
export function jwtAudience(loginUrl: string): string {
  const host = new URL(loginUrl).hostname;
  return host === 'test.salesforce.com' || host.endsWith('.sandbox.my.salesforce.com')
    ? 'https://test.salesforce.com'
    : 'https://login.salesforce.com';
}

/**
 * The Opportunities changed after a time (the reconciliation poll: `SystemModstamp >`, the caller's overlap taken
 * off already), or all of them, oldest change first.
 */
export function opportunitiesChangedAfterQuery(fields: readonly string[], after: Date | null): string {
  const where = after === null ? '' : ` WHERE SystemModstamp > ${soqlDateTime(after)}`;
  return `SELECT ${fields.join(', ')} FROM Opportunity${where} ORDER BY SystemModstamp, Id`;
}

/** The org's split types (Opportunity Splits enabled; else Salesforce answers INVALID_TYPE). */
export const SPLIT_TYPES_QUERY = 'SELECT Id, DeveloperName, SplitField, IsActive FROM OpportunitySplitType';

/**
 * The split type a deal's credit follows: the revenue split type, the active one that splits the `Amount` field
 * (Salesforce's "Revenue" type, whose splits total 100%); null when the org has none. Overlay types (which need not
 * total 100%) are never read.
 */
export function revenueSplitType(rows: ReadonlyArray<Record<string, unknown>>): string | null {
  const active = rows.filter((row) => row.IsActive !== false && row.SplitField === 'Amount');
  const revenue = active.find((row) => row.DeveloperName === 'Revenue') ?? active[0];
  return typeof revenue?.Id === 'string' ? revenue.Id : null;
}

/** The fields of an OpportunitySplit a deal's splits are read from. */
const SPLIT_FIELDS = 'Id, OpportunityId, SplitOwnerId, SplitPercentage, SystemModstamp';

/** The revenue splits of these Opportunities. */
export function splitsQuery(splitTypeId: string, opportunityIds: readonly string[]): string {
  return (
    `SELECT ${SPLIT_FIELDS} FROM OpportunitySplit WHERE SplitTypeId = ${soqlString(splitTypeId)}` +
    ` AND OpportunityId IN (${opportunityIds.map(soqlString).join(', ')}) ORDER BY OpportunityId, Id`
  );
}

/** The revenue splits changed after a time (their Opportunities' splits are read again), oldest change first. */
export function splitsChangedAfterQuery(splitTypeId: string, after: Date | null): string {
  const since = after === null ? '' : ` AND SystemModstamp > ${soqlDateTime(after)}`;
  return (
    `SELECT ${SPLIT_FIELDS} FROM OpportunitySplit WHERE SplitTypeId = ${soqlString(splitTypeId)}${since}` +
    ' ORDER BY SystemModstamp, Id'
  );
}

/** An OpportunitySplit row as the REST API returns it. */
export type SplitRecord = Record<string, unknown> & { OpportunityId?: unknown; SplitOwnerId?: unknown };

/**
 * An Opportunity's revenue splits as a deal event's `splits`: each split owner as the rep it maps to (as owners
 * are), its `SplitPercentage` in basis points, one entry per rep. The owner alone at 100% is no split (`null`: the
 * owner is credited alone); so are no rows. The shares' sum is checked by the deal event.
 */
export function splitsOf(
  rows: readonly SplitRecord[],
  ownerId: unknown,
  repOfOwner: (userId: string) => string,
): Array<{ owner_external_id: string; share_bps: number }> | null {
  const shares = new Map<string, number>();
  for (const row of rows) {
    const rep = repOfOwner(String(row.SplitOwnerId ?? ''));
    const bps = Math.round(Number(row.SplitPercentage) * 100);
    shares.set(rep, (shares.get(rep) ?? 0) + (Number.isFinite(bps) ? bps : Number.NaN));
  }
  if (shares.size === 0) return null;
  const splits = [...shares].map(([owner_external_id, share_bps]) => ({ owner_external_id, share_bps }));
  const owner = typeof ownerId === 'string' ? repOfOwner(ownerId) : null;
  if (splits.length === 1 && splits[0]?.owner_external_id === owner && splits[0].share_bps === 10_000) return null;
  return splits;
}

/** The newest `SystemModstamp` of these rows, or NaN. */
export function newestModstamp(rows: ReadonlyArray<Record<string, unknown>>): number {
  let newest = Number.NaN;
  for (const row of rows) {
    const at = instantOf(row.SystemModstamp);
    if (!Number.isNaN(at) && !(at <= newest)) newest = at;
  }
  return newest;
}
