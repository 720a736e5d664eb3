import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Rate windows are fixed UTC minutes. A test that must land a burst inside one window waits, when the
 * current window is about to end, for the next one to begin.
 */
export async function awaitFreshWindow(minimumSecondsLeft = 8): Promise<void> {
  const msLeft = 60_000 - (Date.now() % 60_000);
  if (msLeft < minimumSecondsLeft * 1000) await sleep(msLeft + 50);
}

/** Polls until `check` returns a value other than undefined, for effects written off the response path. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('the condition did not hold in time');
    await sleep(50);
  }
}
