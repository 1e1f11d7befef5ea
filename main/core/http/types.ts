import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Services } from '../services.ts';

export const withZod = (app: FastifyInstance) => app.withTypeProvider<ZodTypeProvider>();
export type ZodApp = ReturnType<typeof withZod>;

/** Each feature module exports one of these; app.ts registers them all in one place. */
export type RegisterRoutes = (app: ZodApp, services: Services) => void;
