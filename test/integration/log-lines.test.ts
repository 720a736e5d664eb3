import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'vitest';

// The server's log on stderr (createLogger's default destination), in a process of its own: request lines are
// written in batches, every other line at once with the request lines before it, and nothing is lost at exit.

const LOGGER = new URL('../../src/lib/logger.ts', import.meta.url).href;

/** Runs `body` in a new Node process with `logger` at level info; its stderr as it grows, whether it runs, its exit. */
function logInProcess(body: string) {
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { createLogger, REQUEST_LINE } from ${JSON.stringify(LOGGER)};
       const logger = createLogger('info');
       const request = (n) => logger.info({ n }, REQUEST_LINE);
       ${body}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  let ended = false;
  const exited = new Promise<number | null>((done) =>
    child.once('close', (code) => {
      ended = true;
      done(code);
    }),
  );
  const lines = () =>
    stderr
      .split('\n')
      // A crash's own report (not a log line) goes to stderr too.
      .filter((line) => line.startsWith('{'))
      .map((line) => {
        const { msg, n } = JSON.parse(line) as { msg: string; n?: number };
        return n === undefined ? msg : `${msg} ${n}`;
      });
  return { lines, exited, running: () => !ended, stop: () => child.kill('SIGTERM') };
}

describe('log lines on stderr', () => {
  test('a warning goes out at once, after the request lines logged before it', async () => {
    // The process stays alive until the test has read the lines, so they can only have come from the write at the
    // warning, never from the flush at exit (no clock in the test: a busy machine only makes it wait longer).
    const logged = logInProcess(`
      request(1); request(2); logger.warn('a warning'); request(3);
      setInterval(() => {}, 1000);`);
    while (logged.lines().length < 4 && logged.running()) await sleep(50);
    assert.equal(logged.running(), true, 'the process was still running when its lines arrived');
    assert.deepEqual(logged.lines(), ['request 1', 'request 2', 'a warning', 'request 3']);
    logged.stop();
    await logged.exited;
  });

  test('request lines still held when the process exits are written, also on process.exit and on a crash', async () => {
    // Eight processes per ending at once: handed to an asynchronous write at exit, held lines were lost whenever the
    // machine was busy (55 of 60 runs with three busy loops beside them), and eight processes make it busy.
    const endings = ['', 'process.exit(3);', "throw new Error('boom');"];
    const runs = endings.flatMap((end) =>
      Array.from({ length: 8 }, () => ({
        end,
        logged: logInProcess(`for (let n = 1; n <= 5; n++) request(n); ${end}`),
      })),
    );
    for (const { end, logged } of runs) {
      const code = await logged.exited;
      assert.deepEqual(
        logged.lines().filter((line) => line.startsWith('request')),
        ['request 1', 'request 2', 'request 3', 'request 4', 'request 5'],
        `ending with "${end}"`,
      );
      assert.equal(code, end === '' ? 0 : end.startsWith('process') ? 3 : 1);
    }
  });

  test('a burst of request lines arrives whole and in order', async () => {
    const logged = logInProcess('for (let n = 1; n <= 2000; n++) request(n); setTimeout(() => {}, 300);');
    await logged.exited;
    assert.deepEqual(
      logged.lines(),
      Array.from({ length: 2000 }, (_, index) => `request ${index + 1}`),
    );
  });
});
