// Presentation only: how counts and times read in the console and the portal. Money is formatMinorUnits
// (src/domain/currencies.ts), the server's own formatter.

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString('en-US', {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZone: 'UTC',
    timeZoneName: 'short',
  });
}

/** `2026-04-22 16:30:12 UTC`: compact, for table cells. */
export function shortDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

export function relative(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const seconds = Math.round((now - new Date(iso).getTime()) / 1000);
  if (seconds < 5) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} days ago`;
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
}

/** A rep as pickers name them: "Dana Reyes (rep-017)", or the external id alone while they have no display name. */
export function repLabel(rep: { external_id: string; display_name: string | null }): string {
  return rep.display_name === null ? rep.external_id : `${rep.display_name} (${rep.external_id})`;
}
