import { Command } from 'commander';
import { Refusal } from '../../domain/refusal.ts';
import type { AuditEntryRecord } from '../../repositories/audit.ts';
import { withAdminServices } from '../context.ts';
import { print, printFailure, table } from '../output.ts';

export function auditCommand(): Command {
  return new Command('audit')
    .description('list audit log entries of an org, newest first')
    .requiredOption('--org <org_id>', 'the org')
    .option('--limit <n>', 'how many entries, 1 to 10000', '100')
    .option('--since <time>', 'only entries at or after this RFC 3339 time')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: { org: string; limit: string; since?: string; json?: boolean }) => {
      try {
        const limit = Number(options.limit);
        if (!/^\d+$/.test(options.limit) || limit < 1 || limit > 10_000) {
          throw new Refusal('invalid_body', '--limit must be a whole number from 1 to 10000');
        }
        const since = options.since === undefined ? undefined : new Date(options.since);
        if (since && Number.isNaN(since.getTime())) {
          throw new Refusal('invalid_body', '--since must be a time such as 2026-04-22T00:00:00Z');
        }
        const entries = await withAdminServices((services) =>
          services.audit.latest(options.org, { limit, ...(since ? { since } : {}) }),
        );
        const rows = entries.map((entry) => ({ ...entry, target: auditTarget(entry) }));
        print(options, { entries: rows }, () =>
          table(rows, [
            'occurred_at',
            'actor_type',
            'action',
            'target',
            'key_id',
            'method',
            'route',
            'status',
            'duration_ms',
            'request_id',
          ]),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
}

// The detail members that name what an admin action acted on.
const TARGET_MEMBERS = [
  ['key_id', 'key'],
  ['plan_id', 'plan'],
  ['period_id', 'period'],
  ['endpoint_id', 'webhook'],
  ['endpoint_ids', 'webhook'],
  ['message_id', 'message'],
] as const;

/**
 * What an admin action acted on, from its details: the key, plan, period or webhook endpoint (and message), e.g.
 * `plan plan_01…` or `message msg_01…, webhook wh_01…`. Null for API requests (their route says it).
 */
export function auditTarget(entry: Pick<AuditEntryRecord, 'actor_type' | 'details'>): string | null {
  if (entry.actor_type !== 'admin') return null;
  const details = (entry.details ?? {}) as Record<string, unknown>;
  const parts: string[] = [];
  for (const [member, label] of TARGET_MEMBERS) {
    const value = details[member];
    if (typeof value === 'string') parts.push(`${label} ${value}`);
    else if (Array.isArray(value) && value.length > 0) parts.push(`${label} ${value.join(',')}`);
  }
  return parts.length > 0 ? parts.join(', ') : null;
}
