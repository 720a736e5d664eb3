import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import {
  displayNameProblem,
  MAX_DISPLAY_NAME_LENGTH,
  nameFromClaims,
  normaliseDisplayName,
} from '../../src/domain/displayNames.ts';
import { sameName } from '../../src/services/planAcceptances.ts';

describe("a rep's display name", () => {
  test('is kept trimmed, each run of whitespace one space, in NFC', () => {
    assert.equal(normaliseDisplayName('  Dana \t\n Reyes  '), 'Dana Reyes');
    assert.equal(normaliseDisplayName('Rene\u0301e'), 'Renée');
  });

  test('blank, too long or with control characters cannot be kept; 200 characters (not UTF-16 units) can', () => {
    assert.equal(displayNameProblem(''), 'must not be blank');
    assert.match(displayNameProblem('x'.repeat(MAX_DISPLAY_NAME_LENGTH + 1)) ?? '', /at most 200/);
    assert.match(displayNameProblem('Dana\u0000Reyes') ?? '', /control/);
    assert.equal(displayNameProblem('😀'.repeat(MAX_DISPLAY_NAME_LENGTH)), null);
    assert.equal(displayNameProblem('Dana Reyes'), null);
  });

  test('a kept name is the name a rep types: the acceptance check matches it, whatever the spacing and case', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 60 }), (raw) => {
        const kept = normaliseDisplayName(raw);
        if (displayNameProblem(kept) !== null) return;
        assert.equal(normaliseDisplayName(kept), kept);
        assert.ok(sameName(raw, kept));
      }),
    );
    assert.ok(sameName(' dana   REYES ', normaliseDisplayName('Dana  Reyes')));
  });
});

describe("the name in an ID token's claims", () => {
  test('is `name`, else `given_name` and `family_name` joined, else none', () => {
    assert.equal(nameFromClaims({ name: ' Ada  Lovelace ', given_name: 'Augusta' }), 'Ada Lovelace');
    assert.equal(nameFromClaims({ given_name: 'Ada', family_name: 'Lovelace' }), 'Ada Lovelace');
    assert.equal(nameFromClaims({ name: '   ', family_name: 'Lovelace' }), 'Lovelace');
    assert.equal(nameFromClaims({ email: 'ada@example.com' }), null);
    assert.equal(nameFromClaims({ name: 42 }), null);
  });

  test('a name that could not be kept is ignored, never cut short', () => {
    assert.equal(nameFromClaims({ name: 'x'.repeat(MAX_DISPLAY_NAME_LENGTH + 1) }), null);
    assert.equal(nameFromClaims({ name: 'Ada\u0007' }), null);
  });
});
