import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Services } from '../services.ts';

export const withZod = (app: FastifyInstance) => app.withTypeProvider<ZodTypeProvider>();
export type ZodApp = ReturnType<typeof withZod>;

/** Each feature module exports one of these; app.ts registers them all in one place. */
export type RegisterRoutes = (app: ZodApp, services: Services) => void;

/** Sends a body the database already serialised (see toRawPage); the schema still documents it. */
export function sendJson(reply: FastifyReply, json: string | Buffer) {
  // The typed reply expects the schema's object; this body is that object, already serialised.
  return reply.type('application/json; charset=utf-8').send(json as never);
}
