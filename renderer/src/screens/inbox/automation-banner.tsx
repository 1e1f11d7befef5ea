import { useEffect, useState } from 'react';
import type { ActiveRun, Conversation } from '../../../../shared/schemas/index.ts';
import { api } from '../../api/client.ts';
import { events } from '../../api/events.ts';
import { useAction } from '../../components/use-action.ts';
import { hrefFor } from '../../stores/route.ts';
import { selectMemberId, useSession } from '../../stores/session.ts';
import { useThread } from '../../stores/thread.ts';

const RUN_EVENTS = [
  'workflow.run.started',
  'workflow.run.completed',
  'workflow.run.failed',
  'workflow.run.handed_off',
] as const;

interface Known {
  conversationId: string;
  /** The conversation as last handed in (a new copy may say, or leave out, its run). */
  given: ActiveRun | undefined;
  run: ActiveRun;
  /** Whether `run` came from an answer that says (GET /conversations/:id, a PATCH's answer). */
  sure: boolean;
}

/**
 * The run talking to this customer. Only `GET /conversations/:id` and a PATCH's answer carry
 * `activeRun` (list rows and `conversation.updated` leave it out), so a copy without it keeps
 * what is known; a run of this contact starting or ending reads the conversation again.
 */
function useActiveRun(conversation: Conversation): ActiveRun {
  const given = conversation.activeRun;
  const [known, setKnown] = useState<Known>({
    conversationId: conversation.id,
    given,
    run: given ?? null,
    sure: given !== undefined,
  });
  if (known.conversationId !== conversation.id || known.given !== given) {
    const same = known.conversationId === conversation.id;
    setKnown({
      conversationId: conversation.id,
      given,
      run: given !== undefined ? given : same ? known.run : null,
      sure: given !== undefined || (same && known.sure),
    });
  }

  const id = conversation.id;
  const contactId = conversation.contact.id;
  const sure = known.conversationId === id && known.sure;
  // Before the thread's own read lands, the copy shown is the list row's: that read will say.
  const loaded = useThread((s) => s.status === 'ready' && s.conversationId === id);
  useEffect(() => {
    let live = true;
    const read = () => {
      api.conversations.get(id).then(
        (fresh) => {
          if (!live) return;
          setKnown((k) =>
            k.conversationId === id ? { ...k, run: fresh.activeRun ?? null, sure: true } : k,
          );
        },
        () => undefined, // The thread says when the conversation cannot be read.
      );
    };
    if (!sure && loaded) read();
    const stop = events.subscribe(RUN_EVENTS, (event) => {
      const run = event.data.run as { contactId?: unknown } | undefined;
      if (run?.contactId === contactId) read();
    });
    return () => {
      live = false;
      stop();
    };
  }, [id, contactId, sure, loaded]);

  return known.conversationId === id ? known.run : (given ?? null);
}

/**
 * Above the thread while a workflow run talks to this customer (design §7 handoff). Taking it
 * over assigns the conversation to the signed-in member, which ends the run `handed_off` (the
 * core's rule): the bot never talks over a person.
 */
export function AutomationBanner({ conversation }: { conversation: Conversation }) {
  const meId = useSession(selectMemberId);
  const patch = useThread((s) => s.patch);
  const { busy, error, run } = useAction();
  const active = useActiveRun(conversation);
  if (!active) return null;

  const takeOver = () =>
    run(async () => {
      await patch({ assignee: 'me' });
    });

  return (
    <div className="inbox-thread-banner">
      <div
        className="banner banner-info"
        role="status"
        data-testid="automation-banner"
        data-run-id={active.runId}
      >
        <span>
          <strong>Automation:</strong>{' '}
          <a
            href={hrefFor('workflows', `${active.workflowId}/runs/${active.runId}`)}
            className="link-button"
            data-testid="automation-banner-run"
          >
            {active.workflowName}
          </a>{' '}
          is talking to this customer.
          {error ? (
            <span role="alert" data-testid="take-over-error">
              {' '}
              {error}
            </span>
          ) : null}
        </span>
        <button
          type="button"
          className="button button-small button-primary"
          onClick={() => void takeOver()}
          disabled={busy || !meId}
          title={
            meId
              ? 'Assigns the conversation to you and stops the automation.'
              : 'Sign in as a member to take conversations over.'
          }
          data-testid="take-over"
        >
          {busy ? 'Taking over…' : 'Take over'}
        </button>
      </div>
    </div>
  );
}
