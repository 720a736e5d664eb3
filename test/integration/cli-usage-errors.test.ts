import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { allCommands, buildProgram } from '../../src/cli/program.ts';
import { type CliResult, runCliInHost as runCli } from '../helpers/cli.ts';

// Each case is a command of its own, run in the file's CLI hosts: generous timeouts for a loaded machine (nothing
// here is timed).
const MANY_PROCESSES_MS = 600_000;

// The CLI's contract for refusals holds for commander's usage errors too: with --json, exactly one
// {"error","reason"} document on stdout and exit 2, for every command of the tree, before any database is touched.

interface Leaf {
  path: string[];
  /** Placeholders for the positional arguments that are required. */
  args: string[];
  /** Each required option with a placeholder value (the first of its choices, when it has some). */
  required: Array<{ flag: string; value: string }>;
}

function leaves(): Leaf[] {
  return allCommands(buildProgram([]))
    .filter((command) => command.commands.length === 0)
    .map((command) => ({
      path: pathOf(command),
      args: command.registeredArguments.filter((argument) => argument.required).map(() => 'x_placeholder'),
      required: command.options
        .filter((option) => option.mandatory)
        .map((option) => ({ flag: option.long as string, value: option.argChoices?.[0] ?? 'x_placeholder' })),
    }));
}

function pathOf(command: Command): string[] {
  const names: string[] = [];
  for (let current: Command | null = command; current?.parent; current = current.parent) names.unshift(current.name());
  return names;
}

let dataDir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  const parent = await mkdtemp(join(tmpdir(), 'quotient-usage-'));
  // A data directory that does not exist: a usage error must not create a cluster (or anything) there.
  dataDir = join(parent, 'never-created');
  env = { ...process.env, QUOTIENT_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
});

afterAll(async () => {
  await rm(join(dataDir, '..'), { recursive: true, force: true });
});

function assertUsageError(result: CliResult, pattern: RegExp, what: string): void {
  assert.equal(result.code, 2, `${what}: exit code (stderr: ${result.stderr})`);
  const lines = result.stdout.trim().split('\n');
  assert.equal(lines.length, 1, `${what}: exactly one line on stdout, got ${JSON.stringify(result.stdout)}`);
  const document = JSON.parse(lines[0] as string) as Record<string, unknown>;
  assert.deepEqual(Object.keys(document).sort(), ['error', 'reason'], what);
  assert.equal(document.error, 'usage_error', what);
  assert.match(document.reason as string, pattern, what);
}

/** Runs the cases a few at a time, each a command of its own in a CLI host of the file (test/helpers/cli.ts). */
async function inBatches<T>(items: T[], run: (item: T) => Promise<void>, width = 2): Promise<void> {
  for (let start = 0; start < items.length; start += width) {
    await Promise.all(items.slice(start, start + width).map(run));
  }
}

describe('every CLI command keeps the JSON contract for usage errors', () => {
  const all = leaves();

  test('the command tree is enumerated (every admin command is a case below)', () => {
    const names = all.map((leaf) => leaf.path.join(' '));
    for (const expected of ['serve', 'worker', 'orgs create', 'keys revoke', 'plans apply', 'periods lock', 'audit']) {
      assert.ok(names.includes(expected), `${expected} is in ${names.join(', ')}`);
    }
    assert.ok(all.length >= 20, `${all.length} commands`);
  });

  test(
    'a missing required option: one JSON document, exit 2, for every command that has one',
    async () => {
      const withRequired = all.filter((leaf) => leaf.required.length > 0);
      assert.ok(withRequired.length >= 15);
      await inBatches(withRequired, async (leaf) => {
        const missing = leaf.required.at(-1) as { flag: string };
        const given = leaf.required.slice(0, -1).flatMap((option) => [option.flag, option.value]);
        const result = await runCli([...leaf.path, ...leaf.args, ...given, '--json'], env);
        assertUsageError(
          result,
          new RegExp(`required option '${missing.flag}.*' not specified`),
          `quotient ${leaf.path.join(' ')} without ${missing.flag}`,
        );
      });
      assert.equal(existsSync(dataDir), false, 'no data directory was created');
    },
    MANY_PROCESSES_MS,
  );

  test(
    'an unknown option: one JSON document, exit 2, for every command',
    async () => {
      await inBatches(all, async (leaf) => {
        const given = leaf.required.flatMap((option) => [option.flag, option.value]);
        const result = await runCli([...leaf.path, ...leaf.args, ...given, '--bogus-option', '--json'], env);
        assertUsageError(result, /unknown option '--bogus-option'/, `quotient ${leaf.path.join(' ')} --bogus-option`);
      });
      assert.equal(existsSync(dataDir), false, 'no data directory was created');
    },
    MANY_PROCESSES_MS,
  );

  test(
    'a missing argument, an excess argument and an unknown command keep the contract too',
    async () => {
      const withArgument = all.filter((leaf) => leaf.args.length > 0);
      assert.ok(withArgument.length >= 5);
      // Two of them suffice here: the same handler answers every command (the tests above cover them all).
      await inBatches(withArgument.slice(0, 2), async (leaf) => {
        const given = leaf.required.flatMap((option) => [option.flag, option.value]);
        const result = await runCli([...leaf.path, ...given, '--json'], env);
        assertUsageError(result, /missing required argument/, `quotient ${leaf.path.join(' ')} without its argument`);
      });
      assertUsageError(
        await runCli(['keys', 'revoke', 'a', 'b', '--org', 'x', '--json'], env),
        /too many arguments/,
        'excess argument',
      );
      assertUsageError(await runCli(['no-such-command', '--json'], env), /unknown command/, 'unknown command');
    },
    MANY_PROCESSES_MS,
  );

  test('without --json a usage error is text on stderr, nothing on stdout, and exit 2', async () => {
    const result = await runCli(['keys', 'create', '--org', 'x'], env);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /required option '--name <name>' not specified/);
  });
});
