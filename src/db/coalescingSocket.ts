import { Socket } from 'node:net';

/**
 * A TCP or Unix socket that sends everything written to it in one turn of the event loop as one `writev`.
 *
 * `pg` writes each message of the extended query protocol (Parse, Bind, Describe, Execute, Sync) with a write of
 * its own. On a socket that is not busy, Node sends the first of them at once and gathers the rest into a second
 * system call, so PostgreSQL wakes up for a statement's Bind before its Execute has arrived, and every statement
 * costs both processes two sends and a wake-up more. Corked until the turn ends, a statement (or several, sent
 * together by a pipelining client) leaves in one send and is read by PostgreSQL in one wake-up.
 * (docs/benchmarks.md measures what it saves.)
 */
export class CoalescingSocket extends Socket {
  #corked = false;

  override write(
    chunk: string | Uint8Array,
    encodingOrCallback?: BufferEncoding | ((error?: Error | null) => void),
    callback?: (error?: Error | null) => void,
  ): boolean {
    if (!this.#corked) {
      this.#corked = true;
      this.cork();
      process.nextTick(() => {
        this.#corked = false;
        this.uncork();
      });
    }
    return typeof encodingOrCallback === 'function'
      ? super.write(chunk, encodingOrCallback)
      : super.write(chunk, encodingOrCallback, callback);
  }
}

/** `pg`'s `stream` option: a new coalescing socket per connection. */
export function coalescingStream(): Socket {
  return new CoalescingSocket();
}
