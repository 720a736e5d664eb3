import { useState } from 'preact/hooks';
import { api, type Schemas } from '../api.ts';
import { Badge, Empty, PageHeader, ShowList, useLoad } from '../components.tsx';
import { shortDateTime } from '../format.ts';

type Entry = Schemas['AuditEntry'];
interface Filters {
  actor: string;
  key_id: string;
  action: string;
  from: string;
  to: string;
}
const NO_FILTERS: Filters = { actor: '', key_id: '', action: '', from: '', to: '' };

function query(filters: Filters, cursor?: string) {
  const toIso = (local: string) => (local ? new Date(`${local}Z`).toISOString() : undefined);
  const all = {
    actor: filters.actor.trim() || undefined,
    key_id: filters.key_id.trim() || undefined,
    action: filters.action.trim() || undefined,
    from: toIso(filters.from),
    to: toIso(filters.to),
    limit: 25,
    cursor,
  };
  return Object.fromEntries(Object.entries(all).filter(([, value]) => value !== undefined));
}

function describe(entry: Entry): string {
  if (entry.action === 'request') return `${entry.method} ${entry.route} → ${entry.status}`;
  const details = entry.details ?? {};
  if (entry.action === 'plan.apply_refused') {
    return `${String(details.source ?? 'a plan file')}: ${String(details.problems)} problem(s), nothing applied`;
  }
  if (entry.action === 'deals.imported') {
    return `${String(details.source)}: ${String(details.new_deals)} new, ${String(details.updates)} updated, ${String(details.refused)} refused`;
  }
  const subject = ['inquiry_id', 'key_id', 'plan_id', 'period_id', 'endpoint_id', 'message_id', 'email', 'session_id']
    .map((field) => details[field])
    .find((value) => typeof value === 'string');
  return subject ? String(subject) : '';
}

export function AuditPage() {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const page = (cursor?: string) => api.GET('/admin/v1/audit-entries', { params: { query: query(filters, cursor) } });
  const [loaded, reload, loadMore] = useLoad(() => page(), [filters]);
  const [loadingMore, setLoadingMore] = useState(false);

  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every API request and every admin action, newest first. Admin actions name the admin by email; actions from the command line show as cli."
      />
      <form
        class="card filters"
        onSubmit={(event) => {
          event.preventDefault();
          setFilters(draft);
        }}
      >
        <div class="field">
          <label for="filter-actor">Actor</label>
          <input
            id="filter-actor"
            placeholder="email or cli"
            value={draft.actor}
            onInput={(e) => setDraft({ ...draft, actor: e.currentTarget.value })}
          />
        </div>
        <div class="field">
          <label for="filter-key">API key id</label>
          <input
            id="filter-key"
            placeholder="key_…"
            value={draft.key_id}
            onInput={(e) => setDraft({ ...draft, key_id: e.currentTarget.value })}
          />
        </div>
        <div class="field">
          <label for="filter-action">Action</label>
          <input
            id="filter-action"
            placeholder="e.g. key.created"
            list="actions"
            value={draft.action}
            onInput={(e) => setDraft({ ...draft, action: e.currentTarget.value })}
          />
          <datalist id="actions">
            {[
              'request',
              'key.created',
              'key.revoked',
              'plan.applied',
              'plan.archived',
              'deals.imported',
              'period.locked',
              'period.paid',
              'webhook.added',
              'webhook.secret_rotated',
              'webhook.redelivery_requested',
              'admin.signed_in',
              'admin.signed_out',
              'admin.created',
              'admin.disabled',
              'inquiry.opened',
              'inquiry.commented',
              'inquiry.resolved',
              'inquiry.rejected',
              'inquiry.withdrawn',
            ].map((action) => (
              <option key={action} value={action} />
            ))}
          </datalist>
        </div>
        <div class="field">
          <label for="filter-from">From (UTC)</label>
          <input
            id="filter-from"
            type="datetime-local"
            value={draft.from}
            onInput={(e) => setDraft({ ...draft, from: e.currentTarget.value })}
          />
        </div>
        <div class="field">
          <label for="filter-to">To (UTC)</label>
          <input
            id="filter-to"
            type="datetime-local"
            value={draft.to}
            onInput={(e) => setDraft({ ...draft, to: e.currentTarget.value })}
          />
        </div>
        <div class="filter-actions">
          <button type="submit" class="button button-primary">
            Apply filters
          </button>
          <button
            type="button"
            class="button button-quiet"
            onClick={() => {
              setDraft(NO_FILTERS);
              setFilters(NO_FILTERS);
            }}
          >
            Clear
          </button>
        </div>
      </form>
      <ShowList
        loaded={loaded}
        retry={reload}
        items={(data) => data.entries}
        empty={<Empty title="No entries match">Change or clear the filters.</Empty>}
      >
        {(entries, { next_cursor }) => (
          <div class="card table-wrap">
            <table>
              <caption class="visually-hidden">Audit entries</caption>
              <thead>
                <tr>
                  <th scope="col">When (UTC)</th>
                  <th scope="col">Actor</th>
                  <th scope="col">Action</th>
                  <th scope="col">Subject</th>
                  <th scope="col">Request id</th>
                </tr>
              </thead>
              <tbody>
                {entries.map((entry) => (
                  <tr key={entry.id}>
                    <td class="nowrap">{shortDateTime(entry.occurred_at)}</td>
                    <td class="wrap">
                      {entry.actor_type === 'api_key' ? (
                        <span>
                          <Badge tone="blue">API key</Badge> <code>{entry.key_id}</code>
                        </span>
                      ) : entry.actor_type === 'rep' ? (
                        <span>
                          <Badge tone="grey">Rep</Badge> <code>{entry.actor}</code>
                        </span>
                      ) : (
                        <span class="strong">{entry.actor}</span>
                      )}
                    </td>
                    <td>
                      <code>{entry.action}</code>
                    </td>
                    <td class="wrap">{describe(entry)}</td>
                    <td>
                      <code class="small truncate" title={entry.request_id ?? undefined}>
                        {entry.request_id ?? '—'}
                      </code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {next_cursor ? (
              <div class="table-footer">
                <button
                  type="button"
                  class="button"
                  disabled={loadingMore}
                  onClick={async () => {
                    setLoadingMore(true);
                    await loadMore(
                      () => page(next_cursor),
                      (shown, older) => ({ ...older, entries: [...shown.entries, ...older.entries] }),
                    );
                    setLoadingMore(false);
                  }}
                >
                  {loadingMore ? 'Loading…' : 'Load older entries'}
                </button>
              </div>
            ) : (
              <div class="table-footer muted">End of the log for these filters.</div>
            )}
          </div>
        )}
      </ShowList>
    </>
  );
}
