import type { FastifyInstance } from 'fastify';

export class ListenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ListenError';
  }
}

/** Listens on host:port (port 0 picks a free one) and returns the bound URL. */
export async function listen(
  app: FastifyInstance,
  host: string,
  port: number,
): Promise<{ url: string; port: number }> {
  try {
    await app.listen({ host, port });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE')
      throw new ListenError(
        `port ${port} on ${host} is already in use; pass --port to pick another`,
      );
    if (err.code === 'EACCES') throw new ListenError(`not allowed to listen on ${host}:${port}`);
    if (err.code === 'EADDRNOTAVAIL')
      throw new ListenError(`${host} is not an address of this machine`);
    throw e;
  }
  const addr = app.server.address();
  const bound = typeof addr === 'object' && addr ? addr.port : port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return { url: `http://${shown}:${bound}`, port: bound };
}
