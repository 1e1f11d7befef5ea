import { z } from 'zod';
import { page, pageQuery } from '../../../../shared/schemas/common.ts';
import { ledgerEntrySchema, topupBody, walletSchema } from '../../../../shared/schemas/wallet.ts';
import type { RegisterRoutes } from '../../http/types.ts';

const tags = ['Wallet'];

export const walletRoutes: RegisterRoutes = (app, { wallet }) => {
  app.get(
    '/api/wallet',
    {
      schema: {
        tags,
        summary: 'The workspace wallet: balance in micros (1 unit = 1,000,000)',
        response: { 200: walletSchema },
      },
    },
    async (req) => wallet.get(req.principal.workspaceId),
  );

  app.get(
    '/api/wallet/transactions',
    {
      schema: {
        tags,
        summary: 'The append-only ledger, newest first',
        querystring: pageQuery,
        response: { 200: page(ledgerEntrySchema) },
      },
    },
    async (req) =>
      wallet.transactions(req.principal.workspaceId, req.query.limit, req.query.cursor),
  );

  app.post(
    '/api/wallet/topup',
    {
      config: { dashboardOnly: true },
      schema: {
        tags,
        summary: 'Add funds (dashboard only)',
        body: topupBody,
        response: { 200: z.object({ wallet: walletSchema, entry: ledgerEntrySchema }) },
      },
    },
    async (req) =>
      wallet.topup(req.principal.workspaceId, req.body.amountMicros, req.body.description),
  );
};
