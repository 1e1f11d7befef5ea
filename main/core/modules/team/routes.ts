import { ApiError } from '../../../../shared/errors.ts';
import { shareTeamBody, teamStatusSchema } from '../../../../shared/schemas/team.ts';
import { ListenError } from '../../http/server.ts';
import { CertificateError } from '../../tls/certificate.ts';
import type { RegisterRoutes } from '../../http/types.ts';
import type { TeamDesk } from './service.ts';

const tags = ['Team'];

/** Settings → Team: whether the desk is shared on the LAN, where, and with which certificate. */
export const teamRoutes =
  (team: TeamDesk): RegisterRoutes =>
  (app) => {
    app.get(
      '/api/team',
      {
        config: { right: 'team' },
        schema: {
          operationId: 'getTeam',
          tags,
          summary:
            'Whether this desk is shared on the network: addresses, certificate, fingerprint',
          response: { 200: teamStatusSchema },
        },
      },
      async () => team.status(),
    );

    app.post(
      '/api/team/share',
      {
        config: { right: 'team', docs: { errors: ['invalid_state'] } },
        schema: {
          operationId: 'shareTeam',
          tags,
          summary: 'Share this desk on the network (TLS only), or stop sharing it',
          description:
            'Starts (or stops) the TLS listener other desktops join: a self-signed certificate is made on first start and renewed when it ends within 30 days (its fingerprint then changes, and joined desktops need a new invite). `announce` also announces the desk on the LAN (mDNS). A port in use answers 409 `invalid_state`.',
          body: shareTeamBody,
          response: { 200: teamStatusSchema },
        },
      },
      async (req) => {
        try {
          return (await team.share(req.body)).status;
        } catch (e) {
          if (e instanceof ListenError)
            throw new ApiError('invalid_state', e.message, { param: 'port' });
          // A certificate of one's own that cannot be used: the files named, in words.
          if (e instanceof CertificateError)
            throw new ApiError('validation_error', e.message, { param: 'certFile' });
          throw e;
        }
      },
    );
  };
