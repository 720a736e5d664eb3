import type { FormatDefinition } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats.js';

// Formats the contract validator checks beyond ajv-formats' own.

const rfc3339 = fullFormats['date-time'] as FormatDefinition<string> & { validate: (value: string) => boolean };

/**
 * RFC 3339 accepts a leap second (`23:59:60Z`), which JavaScript dates and PostgreSQL timestamps cannot hold:
 * a date-time must also be an instant they can represent, or the request is refused as 400 naming the field.
 */
const dateTime: FormatDefinition<string> = {
  type: 'string',
  validate: (value: string) => rfc3339.validate(value) && !Number.isNaN(Date.parse(value)),
  ...(rfc3339.compare ? { compare: rfc3339.compare } : {}),
};

export const CONTRACT_FORMATS = { 'date-time': dateTime };
