import type { ConditionField } from '../types.ts';

// Plan documents in words a rep reads (docs/plan-documents.md): deal fields by their meaning ("the deal amount",
// "the deal's region") instead of their paths (`amount_cents`, `custom.region`), and the engine's explanation as
// whole sentences, each capitalised and ended, so that sentences printed one after the other do not run together.

/** A custom field's name in words: `new_logo` → "new logo". */
export function customFieldWords(name: string): string {
  return name.replaceAll('_', ' ').trim();
}

/** A condition's field in words. */
export function fieldWords(field: ConditionField | string): string {
  if (field.startsWith('custom.')) return `the deal's ${customFieldWords(field.slice('custom.'.length))}`;
  switch (field) {
    case 'amount_cents':
      return 'the deal amount';
    case 'close_date':
      return "the deal's close date";
    case 'owner_external_id':
      return "the deal's owner";
    case 'stage':
      return "the deal's stage";
    case 'status':
      return "the deal's status";
    default:
      return field;
  }
}

const FIELD_PATH =
  /\bcustom\.([A-Za-z0-9_]+)|\b(amount_cents|close_date|owner_external_id)\b|^(stage|status)(?= is\b)/g;

/** One of the engine's explanation sentences as a rep reads it: no field paths, a capital first, a full stop last. */
export function readableSentence(text: string): string {
  const named = text
    .trim()
    .replace(FIELD_PATH, (_match, custom: string | undefined, known: string | undefined, lead: string | undefined) =>
      fieldWords(custom !== undefined ? `custom.${custom}` : (known ?? lead ?? '')),
    )
    .replace(/\byou is\b/g, 'you are');
  const capital = named.charAt(0).toUpperCase() + named.slice(1);
  return /[.!?:]$/.test(capital) ? capital : `${capital}.`;
}

/** A custom field's value in words: true and false as yes and no. */
export function valueWords(value: unknown): string {
  if (value === true) return 'yes';
  if (value === false) return 'no';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
