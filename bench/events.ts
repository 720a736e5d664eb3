// The deal events the benchmarks send (bench/run.ts, bench/instructions.ts).

export const DISTINCT_DEALS = 5_000;
const STAGES = ['prospecting', 'qualified', 'proposal', 'negotiation', 'closed_won', 'closed_lost'];

/**
 * Deal-event bodies in an endless cycle over 5,000 deals: each call is the next upsert, with a new dedup_key, a
 * moving amount and stage, a steady owner per deal and a custom field.
 */
export function dealEvents(run: string, prefix = 'bench'): () => string {
  let sequence = 0;
  return () => {
    const n = sequence++;
    const deal = n % DISTINCT_DEALS;
    const round = Math.floor(n / DISTINCT_DEALS);
    return JSON.stringify({
      external_id: `${prefix}-${deal}`,
      dedup_key: `${run}-${process.pid}-${n}`,
      event_type: 'upsert',
      state: {
        amount_cents: 100_000 + ((deal * 7919 + round * 104_729) % 9_000_000),
        stage: STAGES[(deal + round) % STAGES.length],
        close_date: `2026-${String((deal % 12) + 1).padStart(2, '0')}-15`,
        owner_external_id: `rep-${deal % 50}`,
        region: ['EMEA', 'NA', 'APAC'][deal % 3],
      },
    });
  };
}
