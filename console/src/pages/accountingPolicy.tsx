import { shortDateTime } from '../../../ui/format.ts';
import { api, type Schemas } from '../api.ts';
import { ApplyFileForm } from '../applyFile.tsx';
import { Empty } from '../components.tsx';

// The org's accounting policy in force (docs/accounting.md, The policy file) and applying a new policy file, as
// `quotient accounting policy apply` does: every problem by path and line, nothing applied while there is any.

type PolicyVersion = Schemas['AccountingPolicyVersion'];

const EXAMPLE = 'book: asc_340_40\ncurrency: USD\ncapitalise:\n  - plan: core-ae\n…';

export function ApplyPolicyFile(props: { onApplied: () => void }) {
  return (
    <ApplyFileForm
      id="policy"
      title="Apply an accounting policy file"
      label="Accounting policy file"
      placeholder={EXAMPLE}
      apply={async (body) => {
        const { data, error } = await api.POST('/admin/v1/accounting/policy-files', { body });
        if (!data) return { error };
        props.onApplied();
        return {
          applied: data.changed
            ? `Applied: policy version ${data.version}.`
            : `The file matches version ${data.version}; nothing changed.`,
        };
      }}
    />
  );
}

/** The policy in force: what is capitalised, over which period, and the GL accounts of the journal. */
export function PolicyInForce(props: { version: PolicyVersion }) {
  const { policy } = props.version;
  const facts: Array<[string, string]> = [
    ['Book', policy.book === 'asc_340_40' ? 'ASC 340-40' : 'IFRS 15'],
    ['Currency', policy.currency],
    [
      'Capitalised',
      policy.capitalise
        .map((entry) => (entry.chips === 'all' ? entry.plan : `${entry.plan} (${entry.chips.join(', ')})`))
        .join('; '),
    ],
    [
      'Benefit period',
      `${policy.benefit_period.field ?? 'no deal field'}, else ${policy.benefit_period.default_months} months` +
        (policy.benefit_period.anticipated_renewal_months > 0
          ? `, plus ${policy.benefit_period.anticipated_renewal_months} anticipated renewal months`
          : ''),
    ],
    [
      'Practical expedient',
      policy.practical_expedient_months === null
        ? 'not elected'
        : `expensed at once up to ${policy.practical_expedient_months} months`,
    ],
    ['Amortisation', `straight line, ${policy.amortisation.proration} proration`],
    ['Churn field', policy.impairment.churn_field ?? 'none (lost or deleted deals impair)'],
    ['Deferred commission asset', policy.gl_accounts.deferred_commission_asset],
    ['Commissions payable', policy.gl_accounts.commission_payable],
    ['Amortisation expense', policy.gl_accounts.amortisation_expense],
    ['Commission expense', policy.gl_accounts.commission_expense],
    ['Impairment expense', policy.gl_accounts.impairment_expense],
  ];
  return (
    <section class="card" aria-labelledby="policy-title">
      <h2 id="policy-title">
        Policy version {props.version.version}, applied {shortDateTime(props.version.created_at)}
      </h2>
      <dl class="facts">
        {facts.map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/** The policy tab: the version in force (or why there is none) and, for admins who may change, the apply form. */
export function PolicyView(props: { loaded: PolicyVersion | null; canChange: boolean; onApplied: () => void }) {
  return (
    <>
      {props.loaded ? (
        <PolicyInForce version={props.loaded} />
      ) : (
        <Empty title="No accounting policy yet">
          {props.canChange
            ? 'Apply the org’s policy file below, or with quotient accounting policy apply FILE --org ORG_ID; see docs/accounting.md.'
            : 'An admin applies the org’s policy file; see docs/accounting.md.'}
        </Empty>
      )}
      {props.canChange ? <ApplyPolicyFile onApplied={props.onApplied} /> : null}
    </>
  );
}
