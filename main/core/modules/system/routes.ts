import { z } from 'zod';
import { rightsOf } from '../../../../shared/permissions.ts';
import { page } from '../../../../shared/schemas/common.ts';
import { meSchema, workspaceSchema } from '../../../../shared/schemas/workspaces.ts';
import type { RegisterRoutes } from '../../http/types.ts';

const tags = ['Workspace'];

export const systemRoutes: RegisterRoutes = (app, { workspaces, members }) => {
  app.get(
    '/api/me',
    {
      config: { right: 'account' },
      schema: {
        operationId: 'getMe',
        tags,
        summary: 'Who the credentials are: workspace, environment and active business account',
        response: { 200: meSchema },
      },
    },
    async (req) => {
      const p = req.principal;
      const m = p.member ? members.get(p.workspaceId, p.member.id) : null;
      return {
        workspace: workspaces.get(p.workspaceId),
        environment: p.environment,
        auth: p.kind,
        keyPrefix: p.keyPrefix,
        businessAccount: workspaces.activeAccount(p.workspaceId),
        role: p.role,
        rights: rightsOf(p.role, p.environment, p.grants),
        grants: [...p.grants],
        member: m
          ? {
              id: m.id,
              name: m.name,
              email: m.email,
              role: m.role,
              canSignIn: m.password_hash !== null,
            }
          : null,
        sessionId: p.sessionId,
      };
    },
  );

  app.get(
    '/api/workspaces',
    {
      config: { right: 'account' },
      schema: {
        operationId: 'listWorkspaces',
        tags,
        summary: 'Workspaces visible to the credentials (the owner sees all; others their own)',
        response: { 200: page(workspaceSchema) },
      },
    },
    async (req) => ({
      data:
        req.principal.role === 'owner'
          ? workspaces.list()
          : [workspaces.get(req.principal.workspaceId)],
      nextCursor: null,
    }),
  );
};

const settingsSchema = z.object({
  allowPrivateWebhooks: z.boolean().describe('allow webhook URLs on loopback/private networks'),
  lowBalanceThresholdMicros: z
    .number()
    .int()
    .min(0)
    .describe('wallet.low_balance fires when a charge crosses it'),
  autoAssign: z
    .boolean()
    .describe(
      'a customer message to an unassigned conversation assigns it round-robin to an online agent under capacity (default off)',
    ),
  assignOnFirstReply: z
    .boolean()
    .describe('a member’s reply to an unassigned conversation assigns it to them (default on)'),
});

export const settingsRoutes: RegisterRoutes = (app, { workspaces }) => {
  app.get(
    '/api/workspace/settings',
    {
      config: { right: 'workspace.read' },
      schema: {
        operationId: 'getWorkspaceSettings',
        tags,
        summary: 'Workspace settings',
        response: { 200: settingsSchema },
      },
    },
    async (req) => workspaces.settings(req.principal.workspaceId),
  );
  app.patch(
    '/api/workspace/settings',
    {
      config: { right: 'workspace.manage' },
      schema: {
        operationId: 'updateWorkspaceSettings',
        tags,
        summary: 'Change workspace settings (dashboard only)',
        body: settingsSchema.partial(),
        response: { 200: settingsSchema },
      },
    },
    async (req) => workspaces.updateSettings(req.principal.workspaceId, req.body),
  );
};
