import { useState } from 'preact/hooks';
import { api, describeError, type Schemas } from '../api.ts';
import { Dialog, Field, Notice } from '../components.tsx';

/**
 * A leaving rep (docs/reps-and-payroll.md, "Leavers and returners"): their last day, and at once their portal sessions
 * and rep tokens end and sign-in is refused. Their history stays; Reactivate brings them back.
 */
export function DeactivateDialog(props: {
  rep: Schemas['Rep'];
  onClose: () => void;
  onDone: (departure: Schemas['RepDeparture']) => void;
}) {
  const [leavingDate, setLeavingDate] = useState(new Date().toISOString().slice(0, 10));
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  return (
    <Dialog
      open
      title={`Deactivate ${props.rep.display_name ?? props.rep.external_id}?`}
      onClose={props.onClose}
      footer={
        <>
          <button type="button" class="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" form="rep-leave-form" class="button button-danger" disabled={busy}>
            {busy ? 'Deactivating…' : 'Deactivate'}
          </button>
        </>
      }
    >
      <form
        id="rep-leave-form"
        onSubmit={async (event) => {
          event.preventDefault();
          setBusy(true);
          const { data, error: refused } = await api.POST('/admin/v1/reps/{id}/deactivate', {
            params: { path: { id: props.rep.id } },
            body: { leaving_date: leavingDate },
          });
          setBusy(false);
          if (data) props.onDone(data);
          else setError(describeError(refused));
        }}
      >
        <p>
          Their portal sessions and rep tokens end now, and they can no longer sign in. Their deals, earnings and
          statements stay; you can reactivate them later.
        </p>
        {error ? <Notice kind="error">{error}</Notice> : null}
        <Field label="Leaving date (their last day)" id="leaving-date">
          <input
            id="leaving-date"
            type="date"
            required
            value={leavingDate}
            onInput={(event) => setLeavingDate(event.currentTarget.value)}
          />
        </Field>
      </form>
    </Dialog>
  );
}
