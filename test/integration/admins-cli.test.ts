import assert from 'node:assert/strict';
import { afterAll, describe, expect, test } from 'vitest';
import { verifyPassword } from '../../src/access/passwords.ts';
import { createOrg } from '../factories/access.ts';
import { onlyJson, runCli } from '../helpers/cli.ts';
import { closeTestDatabase, testDatabase } from '../helpers/database.ts';

afterAll(closeTestDatabase);

describe('quotient admins (CLI)', () => {
  test('create prints the password once; only its scrypt hash is stored; list never shows it; disable', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    const email = `Finance-${Date.now()}@Example.com`;
    const created = await runCli([
      'admins',
      'create',
      '--org',
      org.id,
      '--email',
      email,
      '--name',
      'Fin Ance',
      '--json',
    ]);
    assert.equal(created.code, 0, created.stderr);
    const admin = onlyJson(created) as Record<string, string>;
    assert.equal(admin.email, email.toLowerCase());
    assert.equal(admin.role, 'admin');
    assert.equal(admin.display_name, 'Fin Ance');
    expect(admin.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(admin.sign_in_url).toMatch(/\/admin\/$/);

    const stored = await db.admin.findFirstOrThrow({ where: { id: admin.id } });
    expect(stored.password_hash).toMatch(/^scrypt\$32768\$8\$1\$/);
    assert.ok(!stored.password_hash.includes(admin.password as string));
    assert.equal(await verifyPassword(admin.password as string, stored.password_hash), true);

    const viewer = await runCli(['admins', 'create', '--org', org.id, '--email', `v-${email}`, '--role', 'viewer']);
    assert.equal(viewer.code, 0, viewer.stderr);
    expect(viewer.stdout).toMatch(/This is the only time the password is shown/);

    const listed = await runCli(['admins', 'list', '--org', org.id, '--json']);
    const { admins } = onlyJson(listed) as { admins: Array<Record<string, unknown>> };
    assert.deepEqual(
      admins.map((row) => [row.email, row.role, row.status]),
      [
        [email.toLowerCase(), 'admin', 'active'],
        [`v-${email}`.toLowerCase(), 'viewer', 'active'],
      ],
    );
    assert.ok(!listed.stdout.includes(admin.password as string));

    const disabled = await runCli(['admins', 'disable', email, '--org', org.id, '--json']);
    assert.equal(disabled.code, 0, disabled.stderr);
    assert.deepEqual(
      [(onlyJson(disabled) as Record<string, unknown>).status, (onlyJson(disabled) as Record<string, unknown>).changed],
      ['disabled', true],
    );
    const audit = await db.auditEntry.findMany({ where: { org_id: org.id }, orderBy: { occurred_at: 'asc' } });
    assert.deepEqual(
      audit.map((entry) => [entry.actor, entry.action]),
      [
        ['cli', 'admin.created'],
        ['cli', 'admin.created'],
        ['cli', 'admin.disabled'],
      ],
    );
  });

  test('an email taken already, a bad role or an unknown org is refused with exit 2 and creates nothing', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    const email = `dup-${Date.now()}@example.com`;
    assert.equal((await runCli(['admins', 'create', '--org', org.id, '--email', email])).code, 0);
    const duplicate = await runCli(['admins', 'create', '--org', org.id, '--email', email.toUpperCase(), '--json']);
    assert.equal(duplicate.code, 2);
    assert.equal((onlyJson(duplicate) as { error: string }).error, 'invalid_state');
    const badRole = await runCli([
      'admins',
      'create',
      '--org',
      org.id,
      '--email',
      `r-${email}`,
      '--role',
      'owner',
      '--json',
    ]);
    assert.equal((onlyJson(badRole) as { error: string }).error, 'invalid_argument');
    const noOrg = await runCli(['admins', 'create', '--org', 'org_nope', '--email', `o-${email}`, '--json']);
    assert.equal((onlyJson(noOrg) as { error: string }).error, 'not_found');
    assert.equal(await db.admin.count({ where: { org_id: org.id } }), 1);
  });
});
