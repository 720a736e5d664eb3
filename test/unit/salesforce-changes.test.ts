import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import {
  changeEvent,
  decodeFieldList,
  headerOf,
  RefusedChange,
} from '../../src/domain/connectors/salesforceChanges.ts';

// The field lists of a Change Data Capture header as the Pub/Sub API documents them ("Event Deserialization
// Considerations"): `0x…` a bitmap over the schema's top-level fields, bit i the i-th field; `<position>-0x…` a bitmap
// over the nested fields of the compound field at that position.

const SCHEMA = {
  type: 'record',
  fields: [
    { name: 'ChangeEventHeader', type: 'record' },
    { name: 'Name', type: ['null', { type: 'record', fields: [{ name: 'FirstName' }, { name: 'LastName' }] }] },
    { name: 'StageName', type: ['null', 'string'] },
    { name: 'Amount', type: ['null', 'double'] },
    { name: 'CloseDate', type: ['null', 'int'] },
    { name: 'OwnerId', type: ['null', 'string'] },
  ],
};

describe('Change Data Capture field lists', () => {
  test('a top-level bitmap names the fields at its set bits, least significant first', () => {
    // 0b101100: positions 2, 3 and 5.
    assert.deepEqual(decodeFieldList(['0x2C'], SCHEMA), ['StageName', 'Amount', 'OwnerId']);
    assert.deepEqual(decodeFieldList(['0x00'], SCHEMA), []);
  });

  test("a nested bitmap names the compound field's children, after its parent", () => {
    assert.deepEqual(decodeFieldList(['0x04', '1-0x02'], SCHEMA), ['StageName', 'Name.LastName']);
  });

  test('an update is a patch of its changed fields, its nulled ones cleared, at its commit time', () => {
    const header = headerOf(
      {
        ChangeEventHeader: {
          entityName: 'Opportunity',
          recordIds: ['006A'],
          changeType: 'UPDATE',
          transactionKey: 'tx-1',
          sequenceNumber: 2,
          commitTimestamp: Date.UTC(2026, 4, 1),
          changedFields: ['0x18'],
          nulledFields: ['0x10'],
        },
      },
      SCHEMA,
    );
    const event = changeEvent(
      {
        sfOrgId: '00D1',
        stages: [{ ApiName: 'Closed Won', MasterLabel: 'Closed Won', IsWon: true, IsClosed: true }],
        repOfUser: () => null,
        currency: 'JPY',
        custom: {},
      },
      '006A',
      header,
      { Amount: 1200, CloseDate: null },
    );
    assert.deepEqual(event, {
      external_id: '006A',
      state: { amount_cents: 1200, close_date: null },
      occurred_at: '2026-05-01T00:00:00.000Z',
      dedup_key: 'salesforce:00D1:006A:cdc:tx-1:2',
    });
    assert.throws(
      () =>
        changeEvent(
          { sfOrgId: '00D1', stages: [], repOfUser: () => null, currency: 'USD', custom: {} },
          '006A',
          {
            ...header,
            changeType: 'CREATE',
          },
          { StageName: 'Nowhere' },
        ),
      RefusedChange,
    );
  });
});
