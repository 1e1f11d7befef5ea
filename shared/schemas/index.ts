export * from './common.ts';
export * from './workspaces.ts';
export * from './keys.ts';
export * from './contacts.ts';
export * from './wallet.ts';
