import { useEffect, useRef } from 'preact/hooks';
import { currentToken } from './api.ts';

// Live updates: `GET /v1/events/stream` (server-sent events) read with fetch, since EventSource cannot send the
// rep token. The stream ends by itself every few minutes (and on a network blip): it is opened again with a fresh
// token and the last event's id, so nothing written in between is missed.

export interface EarningsChange {
  type: 'earnings.changed';
  user_id: string;
  user_external_id: string;
  period_id: string;
  deal_id: string | null;
  earning_ids: string[];
}

const RETRY_MS = 2_000;

function parseBlock(block: string): { event?: string; id?: string; data?: string } {
  const fields: { event?: string; id?: string; data?: string } = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon);
    const value = line.slice(colon + 1).replace(/^ /, '');
    if (name === 'event' || name === 'id' || name === 'data') fields[name] = value;
  }
  return fields;
}

/** Calls `onChange` for each earnings change the signed-in rep may see, while the component is mounted. */
export function useEarningsStream(onChange: (change: EarningsChange) => void, onReady?: () => void): void {
  const handlers = useRef({ onChange, onReady });
  handlers.current = { onChange, onReady };
  useEffect(() => {
    const stop = new AbortController();
    let lastEventId: string | undefined;
    const run = async () => {
      while (!stop.signal.aborted) {
        try {
          const headers: Record<string, string> = {
            Authorization: `Bearer ${await currentToken()}`,
            Accept: 'text/event-stream',
          };
          if (lastEventId) headers['Last-Event-ID'] = lastEventId;
          const response = await fetch('/v1/events/stream', { headers, signal: stop.signal });
          if (response.ok && response.body) {
            const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
            let buffer = '';
            for (;;) {
              const { value, done } = await reader.read();
              if (done) break;
              buffer += value;
              let end = buffer.indexOf('\n\n');
              while (end >= 0) {
                const block = parseBlock(buffer.slice(0, end));
                buffer = buffer.slice(end + 2);
                if (block.id) lastEventId = block.id;
                if (block.event === 'ready') handlers.current.onReady?.();
                if (block.event === 'earnings.changed' && block.data) {
                  handlers.current.onChange(JSON.parse(block.data) as EarningsChange);
                }
                end = buffer.indexOf('\n\n');
              }
            }
          }
        } catch {
          // Offline, signed out or aborted: wait and try again (or stop, when aborted).
        }
        if (stop.signal.aborted) return;
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    };
    void run();
    return () => stop.abort();
  }, []);
}
