import { useState } from 'preact/hooks';
import { shortDateTime } from '../../../ui/format.ts';
import { api, describeError, type Schemas } from '../api.ts';
import { Badge, Empty, type Outcome, OutcomeNotice, PageHeader, Show, useLoad } from '../components.tsx';
import { Link } from '../router.tsx';

// Who has and has not accepted a plan version (docs/plan-acceptance.md), with a Remind button per rep who has not:
// the admin API's /admin/v1/plans/{id}/versions/{version_id}/acceptances and /admin/v1/plan-acceptances/{id}/remind.

type VersionAcceptances = Schemas['PlanVersionAcceptances'];

export function PlanAcceptancesPage(props: { planId: string; versionId: string; canChange: boolean }) {
  const [outcome, setOutcome] = useState<Outcome | undefined>(undefined);
  const [busy, setBusy] = useState<string | null>(null);
  const [loaded, reload] = useLoad(async () => {
    const answer = await api.GET('/admin/v1/plans/{id}/versions/{version_id}/acceptances', {
      params: { path: { id: props.planId, version_id: props.versionId } },
    });
    return { data: answer.data as VersionAcceptances | undefined, error: answer.error };
  }, [props.planId, props.versionId]);

  const remind = async (id: string, name: string) => {
    setBusy(id);
    const { data, error } = await api.POST('/admin/v1/plan-acceptances/{id}/remind', { params: { path: { id } } });
    setBusy(null);
    setOutcome(
      data ? { kind: 'success', text: `${name} was reminded.` } : { kind: 'error', text: describeError(error) },
    );
    if (data) void reload();
  };

  return (
    <Show loaded={loaded} retry={reload}>
      {(view) => (
        <>
          <nav class="breadcrumb" aria-label="Breadcrumb">
            <Link href="/plans">Plans</Link> <span aria-hidden="true">/</span>{' '}
            <Link href={`/plans/${view.plan_id}`}>{view.plan_name}</Link> <span aria-hidden="true">/</span>{' '}
            <span>Acceptance of v{view.plan_version}</span>
          </nav>
          <PageHeader
            title={`Acceptance of ${view.plan_name} v${view.plan_version}`}
            description={`${view.accepted_count} accepted, ${view.waiting_count} not yet. Reps accept in the portal by typing their name; a reminder sends plan.acceptance_requested again, at most once an hour.`}
            actions={
              <Link href={`/plans/${view.plan_id}/versions/${view.plan_version_id}/document`}>Plan document</Link>
            }
          />
          <OutcomeNotice outcome={outcome} />
          <section class="card" aria-labelledby="acceptances-title">
            <h2 id="acceptances-title">Reps asked to accept</h2>
            {view.acceptances.length === 0 ? (
              <Empty title="Nobody was asked">No rep was assigned to this version when it was applied.</Empty>
            ) : (
              <div class="table-wrap">
                <table>
                  <caption class="visually-hidden">Who has and has not accepted v{view.plan_version}</caption>
                  <thead>
                    <tr>
                      <th scope="col">Rep</th>
                      <th scope="col">State</th>
                      <th scope="col">Asked</th>
                      <th scope="col">Reminded</th>
                      <th scope="col">Accepted</th>
                      <th scope="col">Typed name</th>
                      <th scope="col">
                        <span class="visually-hidden">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {view.acceptances.map(({ user_name, plan_acceptance: entry }) => (
                      <tr key={entry.id} data-acceptance-id={entry.id}>
                        <td>
                          {user_name}
                          <div class="small muted">{entry.user_external_id}</div>
                        </td>
                        <td>
                          {entry.state === 'accepted' ? (
                            <Badge tone="green">Accepted</Badge>
                          ) : (
                            <Badge tone="amber">Not yet</Badge>
                          )}
                        </td>
                        <td>{shortDateTime(entry.requested_at)}</td>
                        <td>{shortDateTime(entry.reminded_at)}</td>
                        <td>{shortDateTime(entry.accepted_at)}</td>
                        <td>{entry.typed_name ?? '—'}</td>
                        <td>
                          {props.canChange && entry.state === 'requested' ? (
                            <button
                              type="button"
                              class="button"
                              disabled={busy !== null}
                              aria-label={`Remind ${user_name}`}
                              onClick={() => void remind(entry.id, user_name)}
                            >
                              Remind
                            </button>
                          ) : null}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        </>
      )}
    </Show>
  );
}
