/**
 * What a workflow step type does when a run reaches it, core side: one module a type in this
 * folder (named as its rules' module in shared/workflow-steps/), index.ts the registry the engine
 * dispatches through. A step runs inside the run's transaction; it acts through the small context
 * the engine passes and answers an Outcome, which the engine turns into the run's move.
 */
import { ApiError } from '../../../../../shared/errors.ts';
import type { StepOf, StepType } from '../../../../../shared/workflow-steps/index.ts';
import type { Scope } from '../../../runtime.ts';
import type { ContactRow } from '../../contacts/repo.ts';
import type { MembersService } from '../../members/service.ts';
import type { ConversationsService } from '../../conversations/service.ts';
import type { InteractiveListsService } from '../../interactive-lists/service.ts';
import type { MessagesService } from '../../messages/service.ts';

/** What executing one step came to. */
export type Outcome =
  | { kind: 'next'; next: string | null; output: unknown }
  | { kind: 'end'; output: unknown }
  | { kind: 'fail'; error: string }
  | { kind: 'wait'; for: 'timer' | 'reply'; until: number }
  | { kind: 'hold'; until: number }
  | { kind: 'webhook' }
  /** The conversation went to a person (the `assign` step): the run ends `handed_off`. */
  | { kind: 'handoff'; output: Handed & { outcome: 'handed_off' } };

/** Where an `assign` step put the conversation (assignee null: nobody online had room). */
export interface Handed {
  conversationId: string;
  assignee: string | null;
  assigneeName: string | null;
}

/** A message as a send step hands it over. */
export type HandOver = Parameters<MessagesService['handOverForRunner']>[2];

/** What a step may use: the run's scope, time and contact, its template strings, its sends. */
export interface StepContext {
  scope: Scope;
  now: number;
  contact: ContactRow;
  /** Fills a template string from the run (payload, contact, reply, steps' outputs). */
  render: (text: string) => string;
  /** Hands a message over through the governor, as a campaign does: next, hold or fail. */
  send: (fields: HandOver) => Outcome;
  /** A failure when the contact's 24-hour service window is closed, else null. */
  outsideWindow: () => Outcome | null;
  /** Whether the workspace is open now, by its business hours (`is_open_now`). */
  openNow: () => boolean;
  /** Gives the conversation to a member or, with `round_robin`, the next online agent with room. */
  assign: (to: string) => Handed;
  messages: Pick<MessagesService, 'sendableTemplate' | 'listFitsChannel'>;
  lists: Pick<InteractiveListsService, 'find'>;
  conversations: Pick<ConversationsService, 'applyForRunner'>;
  members: Pick<MembersService, 'findActive'>;
}

/** What a step's save-time check may use: the saving scope and what lives in it. */
export interface ScopeContext {
  scope: Scope;
  /** Refuses the save: 400 validation_error naming `param`. */
  refuse: (param: string, message: string) => never;
  /** Whether the workspace allows private webhook targets. */
  allowPrivate: boolean;
  listExists: (id: string) => boolean;
  members: Pick<MembersService, 'findActive'>;
}

export interface StepExecutor<T extends StepType> {
  type: T;
  execute(step: StepOf<T>, run: StepContext): Outcome;
  /**
   * What the step names outside the definition, checked against the saving scope so it fails at
   * save and not at run time (`at`: the step's param prefix, `steps.3`).
   */
  checkScope?(step: StepOf<T>, at: string, saving: ScopeContext): void;
  /** False: its output is in the run's history only, not `{{steps.ID.…}}`. */
  keepsOutput?: false;
}

/** A refusal of the service a step called is the step's failure; anything else is thrown. */
export function failureOf(e: unknown): Outcome {
  if (e instanceof ApiError) return { kind: 'fail', error: `${e.code}: ${e.message}` };
  throw e;
}
