/** A CRM refused a call (or could not be reached): its status and its own message, for the connection's state. */
export class CrmRefusal extends Error {
  readonly status: number | undefined;

  constructor(message: string, status?: number) {
    super(message);
    this.name = 'CrmRefusal';
    this.status = status;
  }
}
