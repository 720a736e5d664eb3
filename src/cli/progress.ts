import type { RecomputeProgressReport } from '../services/adminRecompute.ts';
import type { RecomputeProgress } from '../services/earnings/planRecompute.ts';

/** `[#########...........]  45%  450/1000 reps  12,345 deals  3.2 s`, redrawn in place. */
export function progressBar(stream: NodeJS.WriteStream): RecomputeProgressReport {
  const started = performance.now();
  const width = 30;
  let drawn = false;
  return {
    update: (progress: RecomputeProgress) => {
      const ratio = progress.reps_total === 0 ? 1 : progress.reps_done / progress.reps_total;
      const filled = Math.round(ratio * width);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      stream.write(
        `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.floor(ratio * 100)).padStart(3)}%  ` +
          `${progress.reps_done}/${progress.reps_total} reps  ${progress.deals.toLocaleString('en-US')} deals  ${seconds} s`,
      );
      drawn = true;
    },
    done: () => {
      if (drawn) stream.write('\n');
    },
  };
}

/**
 * `[#########...........]  45%  45,000 rows  1,480 rows/s  ETA 37 s`, redrawn in place: the share of the file's bytes
 * read, and the time left at the rate so far.
 */
export function importProgressBar(stream: NodeJS.WriteStream, totalBytes: number) {
  const started = performance.now();
  const width = 30;
  let drawn = false;
  return {
    update: (rows: number, bytesRead: number) => {
      const ratio = totalBytes === 0 ? 1 : Math.min(1, bytesRead / totalBytes);
      const filled = Math.round(ratio * width);
      const elapsed = (performance.now() - started) / 1000;
      const rate = elapsed > 0 ? rows / elapsed : 0;
      const left = ratio > 0 ? (elapsed / ratio) * (1 - ratio) : Number.NaN;
      stream.write(
        `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.floor(ratio * 100)).padStart(3)}%  ` +
          `${rows.toLocaleString('en-US')} rows  ${Math.round(rate).toLocaleString('en-US')} rows/s  ` +
          `ETA ${Number.isFinite(left) ? `${Math.ceil(left)} s` : '-'}   `,
      );
      drawn = true;
    },
    /** The rows are in; the deals they changed are being evaluated (PendingEvaluations). */
    evaluating: (dealsDone: number, dealsPending: number) => {
      const ratio = dealsPending === 0 ? 1 : Math.min(1, dealsDone / dealsPending);
      const filled = Math.round(ratio * width);
      stream.write(
        `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.floor(ratio * 100)).padStart(3)}%  ` +
          `evaluating earnings: ${dealsDone.toLocaleString('en-US')} of ${dealsPending.toLocaleString('en-US')} deals      `,
      );
      drawn = true;
    },
    done: () => {
      if (drawn) stream.write('\n');
    },
  };
}
