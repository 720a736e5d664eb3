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
