import { Show, useLoad } from '../../../ui/components.tsx';
import { Empty } from '../../../ui/states.tsx';
import { api } from '../api.ts';
import { Link } from '../router.ts';

// A manager's team: the reps they may see (themselves and, transitively, their reports), read-only.

export function TeamPage(props: { meId: string }) {
  const [loaded, reload] = useLoad(() => api.GET('/v1/users', { params: { query: { limit: 200 } } }), []);
  return (
    <div class="stack">
      <header class="page-header">
        <div>
          <h1>My team</h1>
          <p class="muted">The reps who report to you. Their pay is yours to read, not to change.</p>
        </div>
      </header>
      <Show loaded={loaded} retry={reload}>
        {(page) => {
          const reports = page.users.filter((user) => user.id !== props.meId);
          return reports.length === 0 ? (
            <Empty title="Nobody reports to you">Reps who report to you show here.</Empty>
          ) : (
            <ul class="card team-list">
              {reports.map((user) => (
                <li key={user.id}>
                  <Link href={`/reps/${user.id}`}>{user.display_name ?? user.external_id}</Link>
                  {user.display_name === null ? null : <span class="muted small"> {user.external_id}</span>}
                </li>
              ))}
            </ul>
          );
        }}
      </Show>
    </div>
  );
}
