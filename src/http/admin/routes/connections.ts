import type { AdminServices } from '../../../composition.ts';
import { toWireConnection, toWireConnectionPreview } from '../../../wire/connections.ts';
import type { AdminHandlers } from '../handlers.ts';
import { adminContext } from '../session.ts';

export function connectionHandlers(
  services: AdminServices,
): Pick<
  AdminHandlers,
  | 'listConnections'
  | 'createConnection'
  | 'getConnection'
  | 'deleteConnection'
  | 'authorizeConnection'
  | 'completeConnectionAuthorization'
  | 'pauseConnection'
  | 'resumeConnection'
  | 'resyncConnection'
  | 'previewConnection'
> {
  const { connections } = services;
  return {
    listConnections: async (_req, res) => {
      const { session } = adminContext(res);
      res.status(200).json({ connections: (await connections.list(session.org_id)).map(toWireConnection) });
    },

    createConnection: async (req, res) => {
      const { session, actor } = adminContext(res);
      const body = req.body;
      const created = await connections.create(
        session.org_id,
        {
          kind: body.kind,
          clientId: body.client_id,
          clientSecret: body.client_secret,
          redirectUri: body.redirect_uri,
          loginUrl: body.login_url,
          jwt: body.jwt === undefined ? undefined : { username: body.jwt.username, privateKey: body.jwt.private_key },
        },
        actor,
      );
      res.status(201).json(toWireConnection(created));
    },

    getConnection: async (req, res) => {
      const { session } = adminContext(res);
      res.status(200).json(toWireConnection(await connections.get(session.org_id, req.params.id)));
    },

    deleteConnection: async (req, res) => {
      const { session, actor } = adminContext(res);
      await connections.remove(session.org_id, req.params.id, actor);
      res.status(204).end();
    },

    authorizeConnection: async (req, res) => {
      const { session, actor } = adminContext(res);
      const started = await connections.authorize(session.org_id, req.params.id, actor);
      res.status(200).json({ authorize_url: started.authorizeUrl, state: started.state });
    },

    completeConnectionAuthorization: async (req, res) => {
      const { session, actor } = adminContext(res);
      const authorized = await connections.completeAuthorization(session.org_id, req.body, actor);
      res.status(200).json(toWireConnection(authorized));
    },

    pauseConnection: async (req, res) => {
      const { session, actor } = adminContext(res);
      res.status(200).json(toWireConnection(await connections.pause(session.org_id, req.params.id, actor)));
    },

    resumeConnection: async (req, res) => {
      const { session, actor } = adminContext(res);
      res.status(200).json(toWireConnection(await connections.resume(session.org_id, req.params.id, actor)));
    },

    resyncConnection: async (req, res) => {
      const { session, actor } = adminContext(res);
      const from = req.body?.from === undefined ? undefined : new Date(req.body.from);
      res.status(200).json(toWireConnection(await connections.resync(session.org_id, req.params.id, from, actor)));
    },

    previewConnection: async (req, res) => {
      const { session } = adminContext(res);
      const limit = req.query.limit === undefined ? undefined : Number(req.query.limit);
      res.status(200).json(toWireConnectionPreview(await connections.preview(session.org_id, req.params.id, limit)));
    },
  };
}
