/** A CRM refused a call (or could not be reached): its status and its own message, for the connection's state. */
export class CrmRefusal extends Error {
  readonly status: number | undefined;
  /** The CRM was not reached at all (no answer of its own): a condition of the caller's network, not the connection's. */
  readonly unreachable: boolean;

  constructor(message: string, status?: number, options: { unreachable?: boolean } = {}) {
    super(message);
    this.name = 'CrmRefusal';
    this.status = status;
    this.unreachable = options.unreachable === true;
  }
}
