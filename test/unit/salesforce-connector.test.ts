import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { reconcile } from '../../src/domain/connectors/reconciliation.ts';
import {
  instantOf,
  jwtAudience,
  opportunitiesByIdQuery,
  opportunitiesChangedAfterQuery,
  opportunitiesQuery,
  opportunityCells,
  opportunityFields,
  orgIdOf,
  orgMapping,
  revenueSplitType,
  splitsChangedAfterQuery,
  splitsOf,
  splitsQuery,
  versionKey,
} from '../../src/domain/connectors/salesforce.ts';
import { parseDealEvent } from '../../src/domain/deals/event.ts';
import { RowMapper } from '../../src/domain/imports/recordMapper.ts';

// Salesforce's pure rules for the connector: stages from OpportunityStage, the fields an org's describe allows, the
// SOQL sent, an Opportunity read by the salesforce-api mapping, instants as Salesforce writes them, the org id of an
// identity URL, and the JWT bearer flow's audience.

const STAGES = [
  { ApiName: 'Prospecting', MasterLabel: 'Prospecting', IsWon: false, IsClosed: false },
  { ApiName: 'Signed', MasterLabel: 'Signed (won)', IsWon: true, IsClosed: true },
  { ApiName: 'Closed Lost', MasterLabel: 'Closed Lost', IsWon: false, IsClosed: true },
];

describe('Salesforce: stages, fields and records', () => {
  test('won stages are IsWon, lost ones IsClosed and not IsWon, by API name', () => {
    const mapping = orgMapping(STAGES);
    assert.equal(mapping.name, 'salesforce-api');
    assert.deepEqual(mapping.won_stages, ['Signed']);
    assert.deepEqual(mapping.lost_stages, ['Closed Lost']);
  });

  test('CurrencyIsoCode and custom fields are selected only where the org describes them', () => {
    const mapping = orgMapping(STAGES);
    const single = opportunityFields(mapping, new Set(['Id', 'StageName', 'Amount', 'CloseDate', 'OwnerId', 'Name']));
    assert.ok(!single.includes('CurrencyIsoCode'));
    assert.ok(single.includes('Name') && single.includes('SystemModstamp') && single.includes('IsDeleted'));
    assert.ok(!single.includes('LeadSource'));
    const multi = opportunityFields(mapping, new Set(['Id', 'StageName', 'CurrencyIsoCode']));
    assert.ok(multi.includes('CurrencyIsoCode'));
  });

  test('the SOQL pages every record oldest change first, or those changed since a time, or ids escaped', () => {
    assert.equal(
      opportunitiesQuery(['Id', 'Amount'], null),
      'SELECT Id, Amount FROM Opportunity ORDER BY SystemModstamp, Id',
    );
    assert.equal(
      opportunitiesQuery(['Id'], new Date('2026-04-01T00:00:00.000Z')),
      'SELECT Id FROM Opportunity WHERE SystemModstamp >= 2026-04-01T00:00:00Z ORDER BY SystemModstamp, Id',
    );
    assert.equal(
      opportunitiesByIdQuery(['Id'], ['006A', "x' OR Name != '"]),
      "SELECT Id FROM Opportunity WHERE Id IN ('006A', 'x\\' OR Name != \\'')",
    );
  });

  test('an Opportunity becomes its deal event: flags decide the stage, the owner its rep, amounts in minor units', () => {
    const record = {
      attributes: { type: 'Opportunity' },
      Id: '0065g00000OPP0001',
      StageName: 'Signed',
      Amount: 1234.5,
      CloseDate: '2026-05-31',
      OwnerId: '0055g00000REP0001',
      CurrencyIsoCode: 'EUR',
      IsWon: true,
      IsClosed: true,
      IsDeleted: false,
      SystemModstamp: '2026-05-01T09:10:00.000+0000',
      Name: 'Acme',
    };
    const mapping = orgMapping(STAGES);
    const { header, cells } = opportunityCells(record, (userId) => (userId === '0055g00000REP0001' ? 'ada' : userId));
    const mapped = new RowMapper(mapping, header).map(cells, {
      conventions: mapping.conventions ?? { source: 'test' },
      fallbackCurrency: 'USD',
    });
    assert.equal(mapped.kind, 'event');
    if (mapped.kind !== 'event') return;
    assert.equal(mapped.body.external_id, '0065g00000OPP0001');
    assert.equal(mapped.body.currency, 'EUR');
    const state = mapped.body.state as Record<string, unknown>;
    assert.equal(state.stage, 'closed_won');
    assert.equal(state.amount_cents, 123_450);
    assert.equal(state.close_date, '2026-05-31');
    assert.equal(state.owner_external_id, 'ada');
    const deleted = opportunityCells({ ...record, IsDeleted: true }, (userId) => userId);
    assert.equal(
      new RowMapper(mapping, deleted.header).map(deleted.cells, {
        conventions: { source: 'test' },
        fallbackCurrency: 'USD',
      }).kind,
      'deleted',
    );
  });

  test('instants, dedup keys, identity URLs and the JWT audience', () => {
    assert.equal(instantOf('2026-05-01T09:10:00.000+0000'), Date.parse('2026-05-01T09:10:00.000Z'));
    assert.ok(Number.isNaN(instantOf(null)));
    assert.equal(
      versionKey('00D5g000004ABCDEA2', '006X', '2026-05-01T09:10:00.000+0000'),
      `salesforce:00D5g000004ABCDEA2:006X:${Date.parse('2026-05-01T09:10:00Z')}`,
    );
    assert.equal(
      orgIdOf('https://login.salesforce.com/id/00D5g000004ABCDEA2/0055g00000AAAAAAA1'),
      '00D5g000004ABCDEA2',
    );
    assert.equal(orgIdOf('https://login.salesforce.com/id/nothing'), null);
    assert.equal(jwtAudience('https://login.salesforce.com'), 'https://login.salesforce.com');
    assert.equal(jwtAudience('https://acme.my.salesforce.com'), 'https://login.salesforce.com');
    assert.equal(jwtAudience('https://test.salesforce.com'), 'https://test.salesforce.com');
    assert.equal(jwtAudience('https://acme--uat.sandbox.my.salesforce.com'), 'https://test.salesforce.com');
  });
});

describe('Salesforce: revenue splits and the reconciliation poll', () => {
  test('the revenue split type is the active one splitting Amount, never an overlay', () => {
    assert.equal(
      revenueSplitType([
        { Id: '149A', DeveloperName: 'Overlay', SplitField: null, IsActive: true },
        { Id: '149B', DeveloperName: 'Revenue', SplitField: 'Amount', IsActive: true },
      ]),
      '149B',
    );
    assert.equal(
      revenueSplitType([{ Id: '149B', DeveloperName: 'Revenue', SplitField: 'Amount', IsActive: false }]),
      null,
    );
    assert.equal(revenueSplitType([]), null);
  });

  test('splits become basis points per rep, owners mapped as owners; the owner alone at 100% is no split', () => {
    const rep = (id: string) => (id === '005B' ? 'grace@example.com' : id);
    assert.deepEqual(
      splitsOf(
        [
          { OpportunityId: '006', SplitOwnerId: '005A', SplitPercentage: 33.33 },
          { OpportunityId: '006', SplitOwnerId: '005B', SplitPercentage: 66.67 },
        ],
        '005A',
        rep,
      ),
      [
        { owner_external_id: '005A', share_bps: 3333 },
        { owner_external_id: 'grace@example.com', share_bps: 6667 },
      ],
    );
    assert.equal(splitsOf([{ SplitOwnerId: '005A', SplitPercentage: 100 }], '005A', rep), null);
    assert.deepEqual(splitsOf([{ SplitOwnerId: '005B', SplitPercentage: 100 }], '005A', rep), [
      { owner_external_id: 'grace@example.com', share_bps: 10_000 },
    ]);
    assert.equal(splitsOf([], '005A', rep), null);
  });

  test('the SOQL of the poll: after a time (exclusive), splits of one type', () => {
    const at = new Date('2026-05-01T09:10:00.000Z');
    assert.equal(
      opportunitiesChangedAfterQuery(['Id', 'SystemModstamp'], at),
      'SELECT Id, SystemModstamp FROM Opportunity WHERE SystemModstamp > 2026-05-01T09:10:00Z ORDER BY SystemModstamp, Id',
    );
    assert.match(splitsQuery("14'9", ['006A']), /WHERE SplitTypeId = '14\\'9' AND OpportunityId IN \('006A'\)/);
    assert.match(splitsChangedAfterQuery('149', at), /SplitTypeId = '149' AND SystemModstamp > 2026-05-01T09:10:00Z/);
    assert.doesNotMatch(splitsChangedAfterQuery('149', null), /SystemModstamp >/);
  });

  test('a read the deal has already, or older, is no repair; a missed change is; new splits alone are splits', () => {
    const standing = {
      state: { amount_cents: 100, stage: 'open', close_date: '2026-05-01', owner_external_id: '005A', custom: {} },
      status: 'open' as const,
      currency: 'USD',
      splits: null,
      last_occurred_at: new Date('2026-05-01T10:00:00Z'),
    };
    const event = (body: Record<string, unknown>) =>
      parseDealEvent({ external_id: '006', state: {}, occurred_at: '2026-05-01T10:00:00Z', ...body });
    assert.equal(
      reconcile(standing, event({ state: { amount_cents: 100 }, currency: 'USD', splits: null })),
      'unchanged',
    );
    assert.equal(
      reconcile(standing, event({ state: { amount_cents: 200 }, occurred_at: '2026-05-01T09:00:00Z' })),
      'stale',
    );
    assert.equal(reconcile(standing, event({ state: { amount_cents: 200 } })), 'repair');
    assert.equal(reconcile(standing, event({ currency: 'EUR' })), 'repair');
    assert.equal(reconcile(null, event({ state: { amount_cents: 200 } })), 'repair');
    assert.equal(
      reconcile(
        standing,
        event({
          splits: [
            { owner_external_id: '005A', share_bps: 5000 },
            { owner_external_id: '005B', share_bps: 5000 },
          ],
        }),
      ),
      'splits',
    );
    assert.equal(reconcile({ ...standing, status: 'deleted' }, event({ event_type: 'delete' })), 'unchanged');
    assert.equal(reconcile(standing, event({ event_type: 'delete' })), 'repair');
  });
});
