import type { AdminServices } from '../../../composition.ts';
import { Refusal } from '../../../domain/refusal.ts';
import { toMe } from '../../../wire/admin.ts';
import { readCookie } from '../../cookies.ts';
import type { AdminHandlers } from '../handlers.ts';
import { actorOf, adminContext, clearedSessionCookie, SESSION_COOKIE, sessionCookie } from '../session.ts';

export function sessionHandlers(
  services: AdminServices,
): Pick<AdminHandlers, 'createSession' | 'getSessionStatus' | 'deleteSession' | 'getMe'> {
  const { sessions } = services;
  return {
    createSession: async (req, res) => {
      const result = await sessions.signIn({
        email: req.body.email,
        password: req.body.password,
        clientIp: req.ip ?? 'unknown',
        actor: (admin) => actorOf(req, res, admin),
      });
      if (!result.ok && result.reason === 'throttled') {
        throw new Refusal('rate_limited', 'too many failed sign-ins; wait before trying again', {
          retryAfterSeconds: result.retryAfterSeconds,
          headers: { 'Retry-After': String(result.retryAfterSeconds) },
        });
      }
      if (!result.ok) throw new Refusal('invalid_credentials', 'the email or the password is wrong');
      const session = sessions.withIdleEnd(result.session);
      res.append('Set-Cookie', sessionCookie(req, result.token, (session.expires_at.getTime() - Date.now()) / 1000));
      res.status(201).json(toMe(session));
    },

    getSessionStatus: async (req, res) => {
      const token = readCookie(req.get('cookie'), SESSION_COOKIE);
      const session = token ? await sessions.peek(token) : null;
      res.status(200).json(session ? { signed_in: true, me: toMe(session) } : { signed_in: false });
    },

    deleteSession: async (req, res) => {
      const { session, actor } = adminContext(res);
      await sessions.signOut(session, actor);
      res.append('Set-Cookie', clearedSessionCookie(req));
      res.status(204).end();
    },

    getMe: async (_req, res) => {
      res.status(200).json(toMe(adminContext(res).session));
    },
  };
}
