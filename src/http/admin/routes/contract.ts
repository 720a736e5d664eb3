import type { Response } from 'express';
import type { AdminHandlers } from '../handlers.ts';

/** The served admin contract, as JSON text. */
export function contractHandlers(servedContract: string): Pick<AdminHandlers, 'getAdminOpenApiDocument'> {
  return {
    // The document goes out as the text it was serialised to once, not as an object to serialise per request.
    getAdminOpenApiDocument: (_req, res: Response) => {
      res.type('json').set('Cache-Control', 'no-cache').send(servedContract);
    },
  };
}
