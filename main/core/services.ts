import type { Database as Db } from 'better-sqlite3';
import { createSimulatedChannel } from './channel/simulated.ts';
import type { Channel, ChannelRouter } from './channel/types.ts';
import { channelService } from './modules/channel/service.ts';
import { channelWebhook } from './modules/channel/webhook.ts';
import { createHub } from './events/hub.ts';
import { createOutbox } from './events/outbox.ts';
import type { ProcessOwner } from './jobs/owner.ts';
import { processOwner } from './jobs/owner.ts';
import type { Sealer } from './secrets.ts';
import type { Retention } from './jobs/retention.ts';
import { createRetention, DEFAULT_RETENTION } from './jobs/retention.ts';
import { createUndoLog } from './jobs/undo.ts';
import { createScheduler } from './jobs/scheduler.ts';
import { cannedRepliesService } from './modules/canned-replies/service.ts';
import { contactsService } from './modules/contacts/service.ts';
import { conversationsService } from './modules/conversations/service.ts';
import { conversationStore } from './modules/conversations/store.ts';
import { keysService } from './modules/keys/service.ts';
import { messagesService } from './modules/messages/service.ts';
import { simulatorSettings } from './modules/simulator/settings.ts';
import { templatesService } from './modules/templates/service.ts';
import { pricesRepo } from './modules/wallet/prices.ts';
import { walletService } from './modules/wallet/service.ts';
import { webhooksService } from './modules/webhooks/service.ts';
import { workspacesService } from './modules/workspaces/service.ts';
import { auditService } from './modules/audit/service.ts';
import { assignmentService } from './modules/assignment/service.ts';
import { notifications } from './modules/presence/notifications.ts';
import { presenceService } from './modules/presence/service.ts';
import {
  membersService,
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  signInSweeper,
} from './modules/members/service.ts';
import type { ScryptCost } from './modules/members/passwords.ts';
import { DEFAULT_SCRYPT_COST } from './modules/members/passwords.ts';
import type { Resolver } from './net/outbound.ts';
import { createOutbound } from './net/outbound.ts';
import { createGovernor } from './pacing/governor.ts';
import { mediaStore } from './media/store.ts';
import { mediaService } from './modules/media/service.ts';
import { campaignsService } from './modules/campaigns/service.ts';
import { emailService } from './modules/email/service.ts';
import { interactiveListsService } from './modules/interactive-lists/service.ts';
import { workflowsService } from './modules/workflows/service.ts';
import { businessHoursService } from './modules/business-hours/service.ts';
import type { Clock, Random } from './runtime.ts';
import { createIds } from './runtime.ts';

export interface ServiceOptions {
  /** The data dir: media files live in its `media/` (README "Data, backups and security"). */
  dataDir: string;
  /** Seals provider secrets in the repos that store them (README "Data, backups and security"). */
  sealer: Sealer;
  /** The chat channel; the simulated one by default. */
  channel?: Channel;
  log?: (message: string, error?: unknown) => void;
  /** How outbound HTTP (webhooks) resolves host names; tests play DNS with it. */
  resolveHost?: Resolver;
  /** This process, as named on leases and reservations (tests pose as other processes). */
  owner?: ProcessOwner;
  retention?: Retention;
  /** SMTP against a local test peer (self-signed certificates, short timeouts). */
  smtpOptions?: { allowInvalidCerts?: boolean; timeoutMs?: number };
  /** Password hashing cost (design.md §6's by default; tests lower it). */
  scrypt?: ScryptCost;
}

/** Every feature's service, in one place: the HTTP routes, the CLI and the runners call these. */
export function createServices(db: Db, clock: Clock, random: Random, opts: ServiceOptions) {
  const log = opts.log ?? ((m: string, e?: unknown) => console.error(`parley: ${m}`, e ?? ''));
  const ids = createIds(clock, random);
  const owner = opts.owner ?? processOwner(random);
  const undo = createUndoLog();
  const scheduler = createScheduler(db, clock, random, owner, log, undo);
  const outbox = createOutbox(db, clock, ids, scheduler);
  const outbound = createOutbound(opts.resolveHost ? { resolve: opts.resolveHost } : {});
  const governor = createGovernor(db, clock);
  const audit = auditService(db, clock);
  // The governor forgets recipients whose pair clock and 24 h tier slot both ended; the audit
  // trail is kept 400 days; sign-in records 30 days after they end.
  const retentionDays = opts.retention ?? DEFAULT_RETENTION;
  // Media files past their period go (the messages keep their facts): made below, swept here.
  const retention = createRetention(db, clock, scheduler, retentionDays, [
    governor.prune,
    audit.prune,
    signInSweeper(db, clock.now, SESSION_IDLE_MS, SESSION_ABSOLUTE_MS),
    (limit) => media.prune(limit),
  ]);
  const hub = createHub(db, { prunedThrough: retention.prunedThrough, now: clock.now });
  outbox.onCommit(hub.committed);
  const simulator = simulatorSettings(db);
  const simulated = createSimulatedChannel(simulator, random, clock, undo);
  const workspaces = workspacesService(db, clock, ids);
  const members = membersService({
    db,
    clock,
    random,
    ids,
    audit,
    scrypt: opts.scrypt ?? DEFAULT_SCRYPT_COST,
    closeSessions: (sessionIds) => hub.closeSessions(sessionIds),
    // An invite goes by email when the workspace's live SMTP is set up with a sender.
    emailInvite: (workspaceId, to, subject, text) =>
      email.sendNotice(workspaceId, to, subject, text),
    workspaceName: (workspaceId) => workspaces.get(workspaceId).name,
    defaultWorkspace: () => workspaces.resolve().id,
  });
  const mediaFiles = mediaStore(opts.dataDir);
  // Test keys always use the simulator; a live account connected to a provider uses it.
  const channels = channelService({
    db,
    clock,
    random,
    outbox,
    workspaces,
    simulated,
    outbound,
    log,
    sealer: opts.sealer,
    mediaFile: mediaFiles.path,
  });
  const media = mediaService({
    db,
    clock,
    random,
    ids,
    scheduler,
    store: mediaFiles,
    channels,
    log,
    retentionDays: retentionDays.mediaDays,
  });
  const channel = opts.channel ?? simulated;
  const channelFor: ChannelRouter = opts.channel
    ? () => opts.channel!
    : (workspaceId, environment) => channels.channelFor(workspaceId, environment);
  const contacts = contactsService(db, clock, ids);
  const wallet = walletService(db, clock, ids);
  const prices = pricesRepo(db);
  const templates = templatesService(db, clock, ids, scheduler, outbox, simulator, (scope) => {
    if (scope.environment !== 'live' || opts.channel) return null;
    const connected = channels.connectedRow(scope.workspaceId);
    return connected ? channels.clientFor(connected) : null;
  });
  const interactiveLists = interactiveListsService(db, clock, ids);
  // Conversation rows are the conversations module's; messages create and touch them through it.
  const conversationRows = conversationStore({ db, clock, ids, outbox });
  const messages = messagesService({
    governor,
    lists: interactiveLists,
    db,
    clock,
    ids,
    scheduler,
    outbox,
    channelFor,
    contacts,
    conversations: conversationRows,
    templates,
    wallet,
    prices,
    workspaces,
    media,
  });
  // Presence, viewing and typing: in memory, on the stream only (modules/presence).
  const presence = presenceService({ clock, hub, members });
  const conversations = conversationsService({
    db,
    clock,
    scheduler,
    outbox,
    contacts,
    messages,
    workspaces,
    members,
    store: conversationRows,
    notify: notifications({ hub, isOpen: () => db.open }),
  });
  const assignment = assignmentService({
    db,
    conversations,
    presence,
    workspaces,
    members,
    audit,
  });
  const campaigns = campaignsService({
    db,
    clock,
    ids,
    scheduler,
    outbox,
    governor,
    contacts,
    templates,
    messages,
    workspaces,
    log,
  });
  const channelWebhooks = channelWebhook({
    db,
    clock,
    ids,
    channels,
    contacts,
    conversations,
    messages,
    templates,
    log,
  });
  const email = emailService({
    db,
    clock,
    random,
    ids,
    scheduler,
    outbox,
    governor,
    contacts,
    campaigns,
    simulator,
    workspaces,
    outbound,
    audit,
    sealer: opts.sealer,
    ...(opts.smtpOptions ? { smtpOptions: opts.smtpOptions } : {}),
  });
  const businessHours = businessHoursService({ db, clock, audit });
  const workflows = workflowsService({
    db,
    clock,
    random,
    ids,
    scheduler,
    outbox,
    outbound,
    governor,
    contacts,
    messages,
    conversations,
    members,
    assignment,
    businessHours,
    audit,
    lists: interactiveLists,
    workspaces,
  });
  // Who listens to whom, in one place: a campaign's messages move its progress; a contact's
  // message resumes the workflow runs waiting for it and starts the workflows listening for it;
  // a conversation resolved or reopened starts those listening for that; a person's reply or
  // assignment hands the conversation over from automation.
  messages.onCampaignMessage(campaigns.noteProgress);
  messages.onInbound(workflows.onInbound);
  conversationRows.onStatusChange(workflows.onConversationStatus);
  conversations.connectAutomation({ activeRun: workflows.activeRun, handOff: workflows.handOff });
  // After the workflows: a customer's message to an unassigned conversation may assign it.
  messages.onInbound(assignment.onInbound);
  return {
    db,
    email,
    governor,
    workflows,
    businessHours,
    campaigns,
    interactiveLists,
    clock,
    ids,
    owner,
    scheduler,
    retention,
    outbox,
    hub,
    simulator,
    channel,
    channels,
    channelWebhooks,
    media,
    workspaces,
    members,
    audit,
    presence,
    assignment,
    keys: keysService(db, clock, random, ids),
    contacts,
    wallet,
    prices,
    templates,
    messages,
    conversations,
    cannedReplies: cannedRepliesService({ db, clock, ids }),
    outbound,
    webhooks: webhooksService(db, clock, random, ids, scheduler, outbound, outbox),
  };
}
export type Services = ReturnType<typeof createServices>;
