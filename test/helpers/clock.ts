import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Rate windows are fixed: UTC minutes, or windows of QUOTIENT_RATE_LIMIT_WINDOW_SECONDS when a test's servers are
 * given another length (`windowSeconds` here, the same). A test that must land a burst inside one window waits,
 * when the current window is about to end, for the next one to begin.
 */
export async function awaitFreshWindow(minimumSecondsLeft = 8, windowSeconds = 60): Promise<void> {
  const windowMs = windowSeconds * 1000;
  const msLeft = windowMs - (Date.now() % windowMs);
  if (msLeft < minimumSecondsLeft * 1000) await sleep(msLeft + 50);
}

/**
 * Runs `trial` inside one rate window (a UTC minute unless `windowSeconds` says otherwise): it starts with at least
 * `minimumSecondsLeft` seconds of a window left, and when it still ends in a later window (a busy machine), its
 * outcome, a result or a failure, is no test of one window's counting, so it runs again from the start of a new
 * window, up to `attempts` times. A trial that ends in its own window returns its result or throws its failure. A
 * trial that spends a key must make its own.
 */
export async function inOneWindow<T>(
  trial: () => Promise<T>,
  minimumSecondsLeft = 8,
  attempts = 3,
  windowSeconds = 60,
): Promise<T> {
  const windowMs = windowSeconds * 1000;
  for (let attempt = 1; ; attempt++) {
    await awaitFreshWindow(minimumSecondsLeft, windowSeconds);
    const window = Math.floor(Date.now() / windowMs);
    const outcome = await trial().then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    if (Math.floor(Date.now() / windowMs) === window) {
      if (outcome.ok) return outcome.value;
      throw outcome.error;
    }
    if (attempt === attempts) throw new Error(`each of ${attempts} trials ran past the end of its rate window`);
    await awaitFreshWindow(windowSeconds, windowSeconds);
  }
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
