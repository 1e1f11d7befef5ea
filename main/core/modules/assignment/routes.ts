import type { FastifyRequest } from 'fastify';
import { idParams } from '../../../../shared/schemas/common.ts';
import {
  reassignBody,
  reassignResultSchema,
  teamAgentSchema,
  teamAgentsSchema,
  updateTeamAgentBody,
} from '../../../../shared/schemas/together.ts';
import type { RegisterRoutes } from '../../http/types.ts';
import { actorOf } from '../members/routes.ts';
import type { AssignmentContext } from './service.ts';

const tags = ['Working together'];

const contextOf = (req: FastifyRequest): AssignmentContext => ({
  actor: actorOf(req.principal),
  acting: req.principal.agent,
  address: req.ip,
});

const teamAgentExample = {
  id: 'mem_4Tz8pQ1vXy',
  name: 'Ana López',
  email: 'ana@example.com',
  role: 'agent',
  active: true,
  status: 'online',
  capacity: 10,
  autoAssignable: true,
  conversations: { open: 4, pending: 1, snoozed: 0 },
};

/** The admin's view of the team: who is online, their workload, capacities, reassign all. */
export const assignmentRoutes: RegisterRoutes = (app, { assignment }) => {
  app.get(
    '/api/team/agents',
    {
      config: {
        right: 'members',
        docs: { responseExample: { data: [teamAgentExample], nextCursor: null } },
      },
      schema: {
        operationId: 'listTeamAgents',
        tags,
        summary: 'Every member with presence, assigned conversations per status, and capacity',
        description:
          'Counts are of this environment’s conversations. Deactivated members are listed too: they keep what they had until it is reassigned.',
        response: { 200: teamAgentsSchema },
      },
    },
    async (req) => ({ data: assignment.team(req.principal), nextCursor: null }),
  );

  app.patch(
    '/api/team/agents/:id',
    {
      config: {
        right: 'members',
        docs: { requestExample: { capacity: 8 }, responseExample: teamAgentExample },
      },
      schema: {
        operationId: 'updateTeamAgent',
        tags,
        summary: 'Set a member’s capacity for auto-assignment (open conversations; 0: none)',
        params: idParams,
        body: updateTeamAgentBody,
        response: { 200: teamAgentSchema },
      },
    },
    async (req) =>
      assignment.setCapacity(req.principal, contextOf(req), req.params.id, req.body.capacity),
  );

  app.post(
    '/api/members/:id/reassign',
    {
      config: {
        right: 'members',
        docs: {
          requestExample: { to: 'round_robin' },
          responseExample: {
            moved: 2,
            unassigned: 1,
            conversations: [
              { id: 'conv_9Kq2mZ7sT1', assignee: 'mem_2Hd7kW3nQa' },
              { id: 'conv_3Bv8nR5tLp', assignee: null },
            ],
          },
        },
      },
      schema: {
        operationId: 'reassignMemberConversations',
        tags,
        summary: 'Move all of a member’s open, pending and snoozed conversations at once',
        description:
          '`to`: a member id, `unassigned`, or `round_robin` (online agents under capacity, in turn; what finds nobody stays unassigned). This environment’s conversations, in one transaction: a `conversation.updated` for each, a `notification {kind: "assigned"}` to each new assignee, one `conversations.reassigned` entry in the audit trail.',
        params: idParams,
        body: reassignBody,
        response: { 200: reassignResultSchema },
      },
    },
    (req) => assignment.reassignAll(req.principal, contextOf(req), req.params.id, req.body.to),
  );
};
