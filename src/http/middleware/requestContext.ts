import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { type Logger, REQUEST_LINE } from '../../lib/logger.ts';
import type { Metrics } from '../metrics.ts';
import { setApiSecurityHeaders } from '../securityHeaders.ts';

// A caller-supplied request id is kept when it is short and plain, so traces join across systems.
const CALLER_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The first step of every request: its id, the security headers every response carries (an HTML page replaces
 * them), and its log line and metrics once the response is finished. One step rather than several: each step of
 * Express's chain costs every request a dispatch.
 */
export function requestContext(logger: Logger, metrics: Metrics) {
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.get('x-request-id');
    const requestId =
      incoming && CALLER_REQUEST_ID.test(incoming) ? incoming : `req_${randomUUID().replaceAll('-', '')}`;
    res.locals.requestId = requestId;
    res.locals.startedAt = process.hrtime.bigint();
    res.setHeader('X-Request-Id', requestId);
    setApiSecurityHeaders(res);
    res.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - (res.locals.startedAt as bigint)) / 1e6;
      const route: string = res.locals.operation?.pathTemplate ?? req.route?.path ?? 'unmatched';
      metrics.observe(req.method, route, res.statusCode, durationMs / 1000);
      logger.info(
        {
          request_id: requestId,
          method: req.method,
          route,
          status: res.statusCode,
          duration_ms: Math.round(durationMs * 10) / 10,
          key_id: res.locals.auth?.keyId ?? null,
        },
        REQUEST_LINE,
      );
    });
    next();
  };
}
