import type { Database as Db } from 'better-sqlite3';
import { contactsService } from './modules/contacts/service.ts';
import { keysService } from './modules/keys/service.ts';
import { walletService } from './modules/wallet/service.ts';
import { workspacesService } from './modules/workspaces/service.ts';
import type { Clock, Random } from './runtime.ts';
import { createIds } from './runtime.ts';

/** Every feature's service, in one place: the HTTP routes and the CLI call these. */
export function createServices(db: Db, clock: Clock, random: Random) {
  const ids = createIds(clock, random);
  return {
    db,
    clock,
    ids,
    workspaces: workspacesService(db, clock, ids),
    keys: keysService(db, clock, random, ids),
    contacts: contactsService(db, clock, ids),
    wallet: walletService(db, clock, ids),
  };
}
export type Services = ReturnType<typeof createServices>;
