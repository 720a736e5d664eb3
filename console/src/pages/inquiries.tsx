import { useState } from 'preact/hooks';
import { relative, shortDateTime } from '../../../ui/format.ts';
import { api } from '../api.ts';
import { Empty, PageHeader, ShowList, useLoad } from '../components.tsx';
import { Link } from '../router.tsx';
import { STATE_LABEL, STATES, type State, StateBadge, subjectOf, TYPE_LABEL } from './inquiryLabels.tsx';

// The inquiries queue, filtered by state, assignee and age (one inquiry's page: inquiry.tsx).

const AGES = [
  { value: '', label: 'Any age' },
  { value: '1', label: 'Older than 1 day' },
  { value: '3', label: 'Older than 3 days' },
  { value: '7', label: 'Older than 7 days' },
  { value: '30', label: 'Older than 30 days' },
];
const DAY_MS = 86_400_000;

interface Filters {
  state: '' | 'active' | State;
  assignee: string;
  age: string;
}
const DEFAULT_FILTERS: Filters = { state: 'active', assignee: '', age: '' };

function query(filters: Filters, cursor?: string) {
  const states: State[] | undefined =
    filters.state === '' ? undefined : filters.state === 'active' ? ['open', 'in_review'] : [filters.state];
  return {
    ...(states ? { state: states } : {}),
    ...(filters.assignee ? { assignee: filters.assignee } : {}),
    ...(filters.age ? { opened_before: new Date(Date.now() - Number(filters.age) * DAY_MS).toISOString() } : {}),
    limit: 50,
    ...(cursor ? { cursor } : {}),
  };
}
export function InquiriesPage() {
  const [draft, setDraft] = useState<Filters>(DEFAULT_FILTERS);
  const [filters, setFilters] = useState<Filters>(DEFAULT_FILTERS);
  const [admins] = useLoad(() => api.GET('/admin/v1/admins'), []);
  const page = (cursor?: string) => api.GET('/admin/v1/inquiries', { params: { query: query(filters, cursor) } });
  const [loaded, reload, loadMore] = useLoad(() => page(), [filters]);
  const [loadingMore, setLoadingMore] = useState(false);
  const adminList = admins.state === 'ready' ? admins.data.admins : [];

  return (
    <>
      <PageHeader
        title="Inquiries"
        description="Reps' questions about their pay, oldest first. Open one to answer, review, resolve with what settled it, or reject."
      />
      <form
        class="card filters"
        aria-label="Filter inquiries"
        onSubmit={(event) => {
          event.preventDefault();
          setFilters(draft);
        }}
      >
        <div class="field">
          <label for="filter-state">State</label>
          <select
            id="filter-state"
            value={draft.state}
            onChange={(e) => setDraft({ ...draft, state: e.currentTarget.value as Filters['state'] })}
          >
            <option value="active">Open or in review</option>
            <option value="">Any state</option>
            {STATES.map((state) => (
              <option key={state} value={state}>
                {STATE_LABEL[state]}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="filter-assignee">Assignee</label>
          <select
            id="filter-assignee"
            value={draft.assignee}
            onChange={(e) => setDraft({ ...draft, assignee: e.currentTarget.value })}
          >
            <option value="">Anyone</option>
            <option value="none">Nobody (unassigned)</option>
            {adminList.map((admin) => (
              <option key={admin.id} value={admin.id}>
                {admin.email}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="filter-age">Age</label>
          <select
            id="filter-age"
            value={draft.age}
            onChange={(e) => setDraft({ ...draft, age: e.currentTarget.value })}
          >
            {AGES.map((age) => (
              <option key={age.value} value={age.value}>
                {age.label}
              </option>
            ))}
          </select>
        </div>
        <div class="filter-actions">
          <button type="submit" class="button button-primary">
            Apply filters
          </button>
          <button
            type="button"
            class="button button-quiet"
            onClick={() => {
              setDraft(DEFAULT_FILTERS);
              setFilters(DEFAULT_FILTERS);
            }}
          >
            Reset
          </button>
        </div>
      </form>
      <ShowList
        loaded={loaded}
        retry={reload}
        items={(data) => data.inquiries}
        empty={<Empty title="No inquiries match">Nothing is waiting with these filters.</Empty>}
      >
        {(inquiries, { next_cursor }) => (
          <div class="card table-wrap">
            <table>
              <caption class="visually-hidden">Inquiries</caption>
              <thead>
                <tr>
                  <th scope="col">Inquiry</th>
                  <th scope="col">Rep</th>
                  <th scope="col">State</th>
                  <th scope="col">Assignee</th>
                  <th scope="col">Opened</th>
                  <th scope="col">First response</th>
                </tr>
              </thead>
              <tbody>
                {inquiries.map((inquiry) => (
                  <tr key={inquiry.id} data-inquiry-id={inquiry.id}>
                    <th scope="row">
                      <Link href={`/inquiries/${inquiry.id}`} class="strong">
                        {TYPE_LABEL[inquiry.type]}
                      </Link>
                      <div class="muted small">{subjectOf(inquiry)}</div>
                    </th>
                    <td>{inquiry.user_external_id}</td>
                    <td data-field="state">
                      <StateBadge state={inquiry.state} />
                    </td>
                    <td>{inquiry.assignee?.email ?? <span class="muted">Nobody</span>}</td>
                    <td class="nowrap" title={shortDateTime(inquiry.created_at)}>
                      {relative(inquiry.created_at)}
                    </td>
                    <td class="nowrap">{shortDateTime(inquiry.first_response_at)}</td>
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
                      (shown, more) => ({ ...more, inquiries: [...shown.inquiries, ...more.inquiries] }),
                    );
                    setLoadingMore(false);
                  }}
                >
                  {loadingMore ? 'Loading…' : 'Load more'}
                </button>
              </div>
            ) : null}
          </div>
        )}
      </ShowList>
    </>
  );
}
