import { z } from 'zod';
import { page, pageQuery } from '../../../../shared/schemas/common.ts';
import { ledgerEntrySchema, topupBody, walletSchema } from '../../../../shared/schemas/wallet.ts';
import type { RegisterRoutes } from '../../http/types.ts';

const tags = ['Wallet'];

export const walletRoutes: RegisterRoutes = (app, { wallet }) => {
  app.get(
    '/api/wallet',
    {
      config: { right: 'wallet.read' },
      schema: {
        operationId: 'getWallet',
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
      config: { right: 'wallet.read' },
      schema: {
        operationId: 'listWalletTransactions',
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
      config: { right: 'wallet.manage' },
      schema: {
        operationId: 'topUpWallet',
        tags,
        summary: 'Add funds (dashboard only)',
        body: topupBody,
        response: { 200: z.object({ wallet: walletSchema, entry: ledgerEntrySchema }) },
      },
    },
    (req) => wallet.topup(req.principal.workspaceId, req.body.amountMicros, req.body.description),
  );
};

const pricesSchema = z.object({
  MARKETING: z.number().int().min(0),
  UTILITY: z.number().int().min(0),
  AUTHENTICATION: z.number().int().min(0),
  SERVICE: z.number().int().min(0).describe('free text inside the service window'),
});

export const pricesRoutes: RegisterRoutes = (app, { prices }) => {
  app.get(
    '/api/wallet/prices',
    {
      config: { right: 'wallet.read' },
      schema: {
        operationId: 'getPrices',
        tags,
        summary: 'Price per live message by category, in micros',
        response: { 200: pricesSchema },
      },
    },
    async (req) => prices.table(req.principal.workspaceId),
  );
  app.put(
    '/api/wallet/prices',
    {
      config: { right: 'wallet.manage' },
      schema: {
        operationId: 'setPrices',
        tags,
        summary: 'Change prices (dashboard only)',
        body: pricesSchema.partial(),
        response: { 200: pricesSchema },
      },
    },
    async (req) => prices.set(req.principal.workspaceId, req.body),
  );
};
