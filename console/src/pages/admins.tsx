import { shortDateTime } from '../../../ui/format.ts';
import { api } from '../api.ts';
import { Badge, Empty, PageHeader, ShowList, useLoad } from '../components.tsx';

export function AdminsPage() {
  const [loaded, reload] = useLoad(() => api.GET('/admin/v1/admins'), []);
  return (
    <>
      <PageHeader
        title="Admins"
        description="People who can sign in to this console. Admins change things; viewers read everything and change nothing. Operators add and disable accounts with quotient admins."
      />
      <ShowList loaded={loaded} retry={reload} items={(data) => data.admins} empty={<Empty title="No admins" />}>
        {(admins) => (
          <div class="card table-wrap">
            <table>
              <caption class="visually-hidden">Admin accounts</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created (UTC)</th>
                </tr>
              </thead>
              <tbody>
                {admins.map((admin) => (
                  <tr key={admin.id}>
                    <td class="strong">{admin.display_name}</td>
                    <td>{admin.email}</td>
                    <td>
                      {admin.role === 'admin' ? <Badge tone="blue">Admin</Badge> : <Badge tone="grey">Viewer</Badge>}
                    </td>
                    <td>
                      {admin.status === 'active' ? (
                        <Badge tone="green">Active</Badge>
                      ) : (
                        <Badge tone="red">Disabled</Badge>
                      )}
                    </td>
                    <td class="nowrap">{shortDateTime(admin.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </ShowList>
    </>
  );
}
