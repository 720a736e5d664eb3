import type { ComponentChildren } from 'preact';
import { formatMinorUnits } from '../../src/domain/currencies.ts';
import { Badge } from '../../ui/components.tsx';
import { Empty } from '../../ui/states.tsx';
import { Link } from './router.ts';

// Pieces the portal's pages share.

export function Money(props: { cents: number; currency: string }) {
  return <span class="nowrap">{formatMinorUnits(props.cents, props.currency, 'symbol')}</span>;
}

const STATUS_TONES = {
  projected: 'blue',
  pending: 'amber',
  approved: 'green',
  paid: 'grey',
  open: 'blue',
  locked: 'amber',
} as const;

export function StatusBadge(props: { status: keyof typeof STATUS_TONES }) {
  return <Badge tone={STATUS_TONES[props.status]}>{props.status}</Badge>;
}

/** Attainment against quota as a bar; past 100% the bar fills and the figure says how far. */
export function AttainmentBar(props: { percent: number | null; label: string }) {
  if (props.percent === null) return <p class="muted">{props.label}: no quota</p>;
  const shown = Math.max(0, Math.min(100, props.percent));
  return (
    <div class="attainment">
      <div class="attainment-head">
        <span>{props.label}</span>
        <strong>{props.percent.toFixed(1)}%</strong>
      </div>
      <meter
        class="visually-hidden"
        aria-label={props.label}
        min={0}
        max={Math.max(100, props.percent)}
        value={props.percent}
      >
        {props.percent.toFixed(1)}% of quota
      </meter>
      <div class="attainment-track" aria-hidden="true">
        <div
          class={`attainment-fill${props.percent >= 100 ? ' attainment-over' : ''}`}
          style={{ width: `${shown}%` }}
        />
      </div>
    </div>
  );
}

/** The page for an address that names nothing this rep may see: the same for a wrong id and another rep's. */
export function NotFound() {
  return (
    <section>
      <h1>Page not found</h1>
      <Empty title="There is nothing here for you">
        The address may be mistyped, or it names something you cannot see. <Link href="/">Back to your pay</Link>
      </Empty>
    </section>
  );
}

export function Section(props: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="card portal-section">
      <div class="section-head">
        <h2>{props.title}</h2>
        {props.actions ? <div class="section-actions">{props.actions}</div> : null}
      </div>
      {props.children}
    </section>
  );
}
