import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

// A year of history as HubSpot exports it (examples/imports/hubspot-deals.csv's columns): one row per deal, mixed
// stages, close dates over the twelve months before `today`'s month, `reps` owners, in record-id order (so not in
// date order, as a real export is not). Deterministic: the same arguments write the same file.

const OPEN_STAGES = ['Appointment Scheduled', 'Qualified To Buy', 'Presentation Scheduled', 'Contract Sent'];
const REGIONS = ['EMEA', 'NA', 'APAC'];

/** Writes the export to `path`; the deals' close dates fall in the twelve months ending with the month of `until`. */
export async function writeHistoricalExport(
  path: string,
  options: { deals: number; reps: number; until: string },
): Promise<void> {
  const out = createWriteStream(path);
  const [year, month] = options.until.split('-').map(Number) as [number, number];
  let random = 0x2545f491;
  const next = (limit: number) => {
    random ^= random << 13;
    random ^= random >>> 17;
    random ^= random << 5;
    return (random >>> 0) % limit;
  };
  const write = async (line: string) => {
    if (!out.write(line)) await once(out, 'drain');
  };
  await write(
    'Record ID,Deal Name,Deal Stage,Pipeline,Amount,Close Date,Last Modified Date,Deal owner,Currency,Region,New Logo\n',
  );
  for (let deal = 0; deal < options.deals; deal++) {
    const monthsBack = next(12);
    const closeMonth = new Date(Date.UTC(year, month - 1 - monthsBack, 1));
    const day = 1 + next(28);
    const close = `${closeMonth.toISOString().slice(0, 8)}${String(day).padStart(2, '0')}`;
    const roll = next(10);
    // Half won, a fifth lost, the rest still open.
    const stage =
      roll < 5 ? 'Closed Won' : roll < 7 ? 'Closed Lost' : (OPEN_STAGES[next(OPEN_STAGES.length)] as string);
    const amount = (1_000 + next(79_000)).toFixed(2);
    const owner = `Rep ${String(next(options.reps)).padStart(3, '0')}`;
    await write(
      `${20_000_000_000 + deal},Deal ${deal},${stage},Sales Pipeline,${amount},${close} 12:00,${close} 18:00,${owner},USD,` +
        `${REGIONS[next(REGIONS.length)]},${next(5) === 0}\n`,
    );
  }
  out.end();
  await once(out, 'finish');
}
