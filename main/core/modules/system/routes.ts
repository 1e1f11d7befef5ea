import { rightsOf } from '../../../../shared/permissions.ts';
import { page } from '../../../../shared/schemas/common.ts';
import { meSchema, workspaceSchema } from '../../../../shared/schemas/workspaces.ts';
import {
  RETENTION_KINDS,
  retentionSchema,
  workspaceSettingsBody,
  workspaceSettingsSchema,
} from '../../../../shared/schemas/workspace-settings.ts';
import type { RegisterRoutes } from '../../http/types.ts';
import { DEFAULT_RETENTION, RETENTION_SETTINGS } from '../../jobs/retention.ts';

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

const settingsExample = {
  name: 'Acme Shop',
  businessAccountName: 'Acme Shop WhatsApp',
  allowPrivateWebhooks: false,
  lowBalanceThresholdMicros: 5_000_000,
  autoAssign: true,
  assignOnFirstReply: true,
  publicUrl: 'https://desk.acme.example',
};

/** What is kept a fixed time, whatever the desk's settings (README "Retention"). */
const FIXED_RETENTION = [
  { what: 'the audit trail', days: 400 },
  { what: 'ended sign-in sessions', days: 30 },
  { what: 'idempotency keys and their answers', days: 1 },
];

/**
 * Workspace settings (README "Workspace settings"): read by every use, so a change is in force
 * from the next request on; the change is in the audit trail (`settings.updated`, audit/trail.ts).
 */
export const settingsRoutes: RegisterRoutes = (app, { workspaces, retention }) => {
  app.get(
    '/api/workspace/settings',
    {
      config: { right: 'workspace.read', docs: { responseExample: settingsExample } },
      schema: {
        operationId: 'getWorkspaceSettings',
        tags,
        summary: 'Workspace settings',
        response: { 200: workspaceSettingsSchema },
      },
    },
    async (req) => workspaces.settings(req.principal.workspaceId),
  );
  app.patch(
    '/api/workspace/settings',
    {
      config: {
        right: 'workspace.manage',
        docs: {
          requestExample: { lowBalanceThresholdMicros: 5_000_000 },
          responseExample: settingsExample,
        },
      },
      schema: {
        operationId: 'updateWorkspaceSettings',
        tags,
        summary: 'Change workspace settings (dashboard only)',
        description:
          'Fields left out keep their values; an unknown field is a 400. `name` renames the workspace and `businessAccountName` its active business account (each trimmed, then 1–80 characters on one line; else a 400 `validation_error` whose `param` names the field). In force from the next request on; the change (which fields, never their values) is in the audit trail as `settings.updated`.',
        body: workspaceSettingsBody,
        response: { 200: workspaceSettingsSchema },
      },
    },
    async (req) => workspaces.updateSettings(req.principal.workspaceId, req.body),
  );

  app.get(
    '/api/workspace/retention',
    {
      config: { right: 'workspace.read' },
      schema: {
        operationId: 'getRetention',
        tags,
        summary: 'How long the desk keeps what only grows (read-only)',
        description:
          'The periods are the desk’s, for every workspace of its data folder: each is set by its environment variable where the desk runs (`PARLEY_RETENTION_*_DAYS`, README "Retention"), never by a request.',
        response: { 200: retentionSchema },
      },
    },
    async () => ({
      data: RETENTION_KINDS.map((kind) => {
        const key = `${kind}Days` as const;
        const setting = RETENTION_SETTINGS[key];
        return {
          kind,
          days: retention.retention[key],
          defaultDays: DEFAULT_RETENTION[key],
          variable: setting.env,
          minDays: setting.min,
        };
      }),
      fixed: FIXED_RETENTION,
    }),
  );
};
