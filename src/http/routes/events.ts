import type { operations } from '../../../generated/openapi.ts';
import { visibleUserIdsOf } from '../../domain/viewer.ts';
import type { EarningsChange, EarningsStream } from '../../services/earningsStream.ts';
import { type RequestAuth, viewerOf } from '../middleware/authenticate.ts';
import type { PublicHandlers } from './index.ts';

type StreamHeaders = NonNullable<operations['streamEvents']['parameters']['header']>;

export interface EventRouteDeps {
  earningsStream: EarningsStream;
}

const KEEP_ALIVE_MS = 15_000;
const RECONNECT_MS = 2_000;

function sseBlock(event: string, data: unknown, id?: number): string {
  return `event: ${event}\n${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`;
}

/**
 * `GET /v1/events/stream`: server-sent events of the earning rows written for the reps the caller may see. The
 * stream reads on a timer (EarningsStream) until the client goes, the stream's time is up or the server shuts down.
 */
export function eventHandlers(deps: EventRouteDeps): Pick<PublicHandlers, 'streamEvents'> {
  return {
    streamEvents: async (req, res) => {
      const auth = res.locals.auth as RequestAuth;
      const viewer = viewerOf(res);
      const lastEventId = (req.headers as StreamHeaders)['last-event-id' as keyof StreamHeaders];
      const resumeAt = typeof lastEventId === 'string' ? Number(lastEventId) : null;
      const watch = deps.earningsStream.watch({ orgId: viewer.orgId, userIds: visibleUserIdsOf(viewer) }, resumeAt);
      const { pollMs } = deps.earningsStream.settings;
      // A rep token's stream ends when the token does; the client reconnects with a fresh one.
      const maxMs =
        auth.kind === 'rep'
          ? Math.max(0, Math.min(deps.earningsStream.settings.maxMs, auth.expiresAt.getTime() - Date.now()))
          : deps.earningsStream.settings.maxMs;

      // The first read (where a fresh watch starts; what a resumed one missed) is made before the answer begins, so a
      // failing database is an ordinary 503.
      const first = await watch.read();
      res.status(200).set({
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store',
        // Proxies that buffer answers (nginx) would hold the events back.
        'X-Accel-Buffering': 'no',
      });
      res.flushHeaders();
      res.write(`retry: ${RECONNECT_MS}\n\n`);
      res.write(sseBlock('ready', { type: 'ready' }));

      let ended = false;
      let reading = false;
      const timers: NodeJS.Timeout[] = [];
      const end = () => {
        if (ended) return;
        ended = true;
        for (const timer of timers) clearInterval(timer);
        forget();
        res.end();
      };
      const forget = deps.earningsStream.opened(end);
      const send = (changes: EarningsChange[], position: number) => {
        for (const change of changes) res.write(sseBlock(change.type, change, position));
      };
      send(first.changes, first.position);
      timers.push(
        setInterval(async () => {
          if (reading || ended) return;
          reading = true;
          try {
            const { changes, position } = await watch.read();
            if (!ended) send(changes, position);
          } catch {
            // The database is away: the client reconnects after the stream ends and gets a 503 until it is back.
            end();
          } finally {
            reading = false;
          }
        }, pollMs),
        setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS),
        setTimeout(end, maxMs),
      );
      req.on('close', end);
    },
  };
}
