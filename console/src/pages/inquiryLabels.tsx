import type { Schemas } from '../api.ts';
import { Badge } from '../components.tsx';

// What the inquiries queue and one inquiry's page both show: the states and types by name, the state's badge and
// the subject's line.

export type Inquiry = Schemas['AdminInquiry'];
export type State = Schemas['InquiryState'];
export type LinkKind = Schemas['InquiryResolutionLink']['kind'];

export const STATES: State[] = ['open', 'in_review', 'resolved', 'rejected', 'withdrawn'];
export const STATE_LABEL: Record<State, string> = {
  open: 'Open',
  in_review: 'In review',
  resolved: 'Resolved',
  rejected: 'Rejected',
  withdrawn: 'Withdrawn',
};
const STATE_TONE = { open: 'blue', in_review: 'amber', resolved: 'green', rejected: 'red', withdrawn: 'grey' } as const;
export const TYPE_LABEL: Record<Schemas['InquiryType'], string> = {
  missing_deal: 'Missing deal',
  wrong_amount: 'Wrong amount',
  wrong_credit: 'Wrong credit',
  wrong_plan: 'Wrong plan',
  other: 'Other',
};

export function StateBadge(props: { state: State }) {
  return <Badge tone={STATE_TONE[props.state]}>{STATE_LABEL[props.state]}</Badge>;
}

export function subjectOf(inquiry: Inquiry): string {
  const { subject } = inquiry;
  if (subject.kind === 'earning') return `Earning ${subject.earning_id} (${subject.period_id})`;
  if (subject.kind === 'deal') return `Deal ${subject.deal_id}`;
  return `Statement ${subject.period_id}`;
}
