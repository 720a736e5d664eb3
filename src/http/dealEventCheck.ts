import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { type DealEvent, parseDealEvent } from '../domain/deals/event.ts';
import { Refusal } from '../domain/refusal.ts';
import { CONTRACT_FORMATS } from './formats.ts';
import { describeField } from './middleware/errorHandler.ts';

/**
 * One deal event checked as `POST /v1/deals/events` checks its body: the contract's `DealEvent` schema (with the
 * contract validator's formats), then the domain's rules, refused with the same `invalid_body` reasons. For the
 * events of a batch, which the contract lets through as plain objects so that each is answered on its own, and for
 * the rows an import turns into events.
 */
export class DealEventCheck {
  private readonly contract: Record<string, unknown>;
  private compiled: ValidateFunction | undefined;

  constructor(contract: Record<string, unknown>) {
    this.contract = contract;
  }

  /** The event, or a Refusal `invalid_body` whose reason starts with the field path inside the event. */
  check(body: unknown): DealEvent {
    const validate = this.validator();
    if (!validate(body)) {
      const first = validate.errors?.[0];
      // As the contract validator names it: an unknown member by its own path.
      const unknown = (first?.params as { additionalProperty?: string } | undefined)?.additionalProperty;
      const path = `/body${first?.instancePath ?? ''}${unknown === undefined ? '' : `/${unknown}`}`;
      throw new Refusal('invalid_body', describeField(path, first?.message));
    }
    return parseDealEvent(body);
  }

  /** The event, or the reason the API would refuse it with (an import's row refused, not thrown). */
  outcome(body: unknown): { event: DealEvent } | { refusal: string } {
    try {
      return { event: this.check(body) };
    } catch (error) {
      if (error instanceof Refusal) return { refusal: error.reason };
      throw error;
    }
  }

  /** Compiled on the first event checked, so that a process that takes no batch pays nothing for it. */
  private validator(): ValidateFunction {
    if (this.compiled) return this.compiled;
    const ajv = new Ajv2020({ strict: false, allErrors: false, validateSchema: false });
    for (const [name, format] of Object.entries({ ...fullFormats, ...CONTRACT_FORMATS })) ajv.addFormat(name, format);
    const components = (this.contract.components ?? {}) as { schemas?: Record<string, unknown> };
    ajv.addSchema({ $id: 'quotient:contract', components: { schemas: components.schemas ?? {} } });
    this.compiled = ajv.compile({ $ref: 'quotient:contract#/components/schemas/DealEvent' });
    return this.compiled;
  }
}
