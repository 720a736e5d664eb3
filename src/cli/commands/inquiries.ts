import { Command } from 'commander';
import { CLI_ACTOR } from '../../audit/adminEntries.ts';
import type { AdminServices } from '../../composition.ts';
import { INQUIRY_STATES, type InquiryState, isInquiryState, RESOLUTION_LINK_KINDS } from '../../domain/inquiries.ts';
import { Refusal } from '../../domain/refusal.ts';
import type { InquiryActor, InquiryWithThread, ResolveInquiryInput } from '../../services/inquiries.ts';
import { toWireAdminInquiry, type WireAdminInquiry } from '../../wire/inquiries.ts';
import { withAdminServices } from '../context.ts';
import { print, printFailure, table } from '../output.ts';

// `quotient inquiries`: the admins' queue of reps' inquiries from a terminal, as the console's queue does
// (docs/inquiries.md). The actor is `cli`, audited like every admin command.

const ACTOR: InquiryActor = { kind: 'admin', admin: CLI_ACTOR };

interface OrgOptions {
  org: string;
  json?: boolean;
}

/** Prints the inquiry (with its thread) after a change, or the refusal. */
function change<Options extends OrgOptions>(
  run: (services: AdminServices, id: string, options: Options) => Promise<InquiryWithThread>,
  done: (inquiry: WireAdminInquiry) => string,
) {
  return async (id: string, options: Options) => {
    try {
      const found = await withAdminServices((services) => run(services, id, options));
      const inquiry = toWireAdminInquiry(found.inquiry, found.comments);
      print(options, inquiry, () => done(inquiry));
    } catch (error) {
      printFailure(options, error);
    }
  };
}

function describeInquiry(inquiry: WireAdminInquiry): string {
  const subject =
    inquiry.subject.kind === 'earning'
      ? `earning ${inquiry.subject.earning_id} (${inquiry.subject.period_id})`
      : inquiry.subject.kind === 'deal'
        ? `deal ${inquiry.subject.deal_id}`
        : `statement ${inquiry.subject.period_id}`;
  const expected = inquiry.expected_amount
    ? `${inquiry.expected_amount.amount_cents} ${inquiry.expected_amount.currency} (minor units)`
    : '-';
  const lines = [
    `${inquiry.id}  ${inquiry.state}  ${inquiry.type}`,
    `rep:            ${inquiry.user_external_id} (${inquiry.user_id})`,
    `about:          ${subject}`,
    `expected:       ${expected}`,
    `opened:         ${inquiry.created_at} by ${inquiry.opened_by.label}`,
    `assignee:       ${inquiry.assignee?.email ?? '-'}`,
    `first response: ${inquiry.first_response_at ?? '-'}`,
    `closed:         ${inquiry.closed_at ?? '-'}`,
    '',
    inquiry.message,
  ];
  if (inquiry.resolution) {
    const changed = inquiry.resolution.amount_changed;
    lines.push(
      '',
      `resolution: ${inquiry.resolution.note}`,
      `  amount changed: ${changed ? `${changed.amount_cents} ${changed.currency}` : '-'}`,
      ...inquiry.resolution.links.map((link) => `  settled by: ${link.kind}${link.id ? ` ${link.id}` : ''}`),
    );
  }
  if (inquiry.rejection_reason) lines.push('', `rejected: ${inquiry.rejection_reason}`);
  for (const comment of inquiry.comments ?? []) {
    lines.push(
      '',
      `${comment.created_at} ${comment.author.label}${comment.internal ? ' (internal)' : ''}:`,
      `  ${comment.body}`,
    );
  }
  return lines.join('\n');
}

/** `--to`: an admin's id or email, or `none`. */
async function assigneeId(services: AdminServices, orgId: string, to: string): Promise<string | null> {
  if (to === 'none') return null;
  if (!to.includes('@')) return to;
  const found = (await services.admins.list(orgId)).find((admin) => admin.email === to.toLowerCase());
  if (!found) throw new Refusal('invalid_body', `--to: no admin ${to} in org ${orgId}`);
  return found.id;
}

/** `--link kind[:id]`, repeatable: adjustment:adj_…, source_event:se_…, recompute. */
function parseLinks(values: readonly string[]): ResolveInquiryInput['links'] {
  return values.map((value) => {
    const [kind, id] = value.split(':', 2) as [string, string | undefined];
    if (!(RESOLUTION_LINK_KINDS as readonly string[]).includes(kind)) {
      throw new Refusal('invalid_body', `--link ${value}: the kinds are ${RESOLUTION_LINK_KINDS.join(', ')}`);
    }
    return { kind: kind as ResolveInquiryInput['links'][number]['kind'], id: id ?? null };
  });
}

/** `--amount-changed 15000:USD`: the signed amount in minor units and its currency. */
function parseAmount(value: string | undefined): ResolveInquiryInput['amount_changed'] {
  if (value === undefined) return null;
  const match = /^(-?\d{1,15}):([A-Z]{3})$/.exec(value);
  if (!match) throw new Refusal('invalid_body', '--amount-changed: give minor units and a currency, e.g. -2500:USD');
  return { amount_cents: Number(match[1]), currency: match[2] as string };
}

export function inquiriesCommand(): Command {
  const inquiries = new Command('inquiries').description(
    "reps' inquiries about their pay: the queue, and settling them",
  );
  inquiries
    .command('list')
    .description('list the queue, oldest first')
    .requiredOption('--org <org_id>', 'the org')
    .option('--state <states>', `comma-separated: ${INQUIRY_STATES.join(', ')}`)
    .option('--assignee <admin>', "an admin's id, or none for the unassigned")
    .option('--opened-before <time>', 'only inquiries opened before this time (ISO 8601)')
    .option('--rep <user_id>', 'only inquiries about this rep')
    .option('--limit <n>', 'at most this many (1 to 200)', '50')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(
      async (
        options: OrgOptions & {
          state?: string;
          assignee?: string;
          openedBefore?: string;
          rep?: string;
          limit: string;
        },
      ) => {
        try {
          const states = options.state?.split(',').map((state) => state.trim());
          const unknown = states?.filter((state) => !isInquiryState(state)) ?? [];
          if (unknown.length > 0) {
            throw new Refusal(
              'invalid_body',
              `--state: unknown ${unknown.join(', ')}; the states are ${INQUIRY_STATES.join(', ')}`,
            );
          }
          const openedBefore = options.openedBefore === undefined ? undefined : new Date(options.openedBefore);
          if (openedBefore && Number.isNaN(openedBefore.getTime())) {
            throw new Refusal('invalid_body', '--opened-before: must be a time, e.g. 2026-05-01T00:00:00Z');
          }
          const limit = Number(options.limit);
          if (!Number.isInteger(limit) || limit < 1 || limit > 200) {
            throw new Refusal('invalid_body', '--limit: must be an integer from 1 to 200');
          }
          const page = await withAdminServices((services) =>
            services.inquiries.list(options.org, ACTOR, {
              filters: {
                ...(states ? { states: states as InquiryState[] } : {}),
                ...(options.assignee === undefined
                  ? {}
                  : { assigneeAdminId: options.assignee === 'none' ? null : options.assignee }),
                ...(openedBefore ? { openedBefore } : {}),
                ...(options.rep === undefined ? {} : { userId: options.rep }),
              },
              limit,
            }),
          );
          const rows = page.inquiries.map((inquiry) => toWireAdminInquiry(inquiry));
          print(options, { inquiries: rows, next_cursor: page.nextCursor }, () =>
            table(
              rows.map((row) => ({ ...row, rep: row.user_external_id, assignee: row.assignee?.email ?? null })),
              ['id', 'state', 'type', 'rep', 'assignee', 'created_at', 'first_response_at'],
            ),
          );
        } catch (error) {
          printFailure(options, error);
        }
      },
    );
  inquiries
    .command('show')
    .description('show an inquiry with its whole thread, internal notes included')
    .argument('<inquiry_id>')
    .requiredOption('--org <org_id>', 'the org')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(
      change((services, id, options: OrgOptions) => services.inquiries.get(options.org, ACTOR, id), describeInquiry),
    );
  inquiries
    .command('assign')
    .description('give an inquiry to an admin (by id or email), or to nobody with --to none')
    .argument('<inquiry_id>')
    .requiredOption('--org <org_id>', 'the org')
    .requiredOption('--to <admin>', "an admin's id or email, or none")
    .option('--json', 'print exactly one JSON document on stdout')
    .action(
      change(
        async (services, id, options: OrgOptions & { to: string }) =>
          services.inquiries.assign(options.org, ACTOR, id, await assigneeId(services, options.org, options.to)),
        (inquiry) => `Assigned ${inquiry.id} to ${inquiry.assignee?.email ?? 'nobody'}`,
      ),
    );
  inquiries
    .command('resolve')
    .description('resolve an inquiry with what settled it and the amount that changed')
    .argument('<inquiry_id>')
    .requiredOption('--org <org_id>', 'the org')
    .requiredOption('--note <text>', 'the explanation the rep sees')
    .option(
      '--link <kind[:id]>',
      'what settled it, repeatable: adjustment:adj_…, source_event:se_…, recompute',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option('--amount-changed <minor:CUR>', 'the signed amount it changed, e.g. 15000:USD (omit when nothing)')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(
      change(
        (services, id, options: OrgOptions & { note: string; link: string[]; amountChanged?: string }) =>
          services.inquiries.resolve(options.org, ACTOR, id, {
            note: options.note,
            links: parseLinks(options.link),
            amount_changed: parseAmount(options.amountChanged),
          }),
        (inquiry) => `Resolved ${inquiry.id}`,
      ),
    );
  inquiries
    .command('reject')
    .description('reject an inquiry with the reason the rep sees')
    .argument('<inquiry_id>')
    .requiredOption('--org <org_id>', 'the org')
    .requiredOption('--reason <text>', 'why')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(
      change(
        (services, id, options: OrgOptions & { reason: string }) =>
          services.inquiries.reject(options.org, ACTOR, id, options.reason),
        (inquiry) => `Rejected ${inquiry.id}`,
      ),
    );
  return inquiries;
}
