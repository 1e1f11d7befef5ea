import { useMemo, type RefObject } from 'react';
import type { Agent } from '../../../../shared/schemas/index.ts';
import { Avatar } from '../../components/avatar.tsx';
import { PresenceWords, WithPresence } from '../../components/presence-dot.tsx';
import { PickerPanel, useTextPicker } from '../../components/text-picker.tsx';
import { useAgents } from '../../stores/agents.ts';
import { selectMemberId, useSession } from '../../stores/session.ts';
import { insertMention, matchMembers, mentionTriggerAt } from './mention-query.ts';

interface MentionPickerOptions {
  /** Only a private note mentions anyone. */
  enabled: boolean;
  text: string;
  setText: (text: string) => void;
  textarea: RefObject<HTMLTextAreaElement | null>;
}

/**
 * The note composer's `@` picker: the active teammates whose name starts with what follows the
 * `@`, each with their presence; Enter or Tab puts the full name in (as the core matches it).
 * It opens only when someone matches, so an `@` that is not a mention is left alone.
 */
export function useMentionPicker({ enabled, text, setText, textarea }: MentionPickerOptions) {
  const agents = useAgents((s) => s.agents);
  const meId = useSession(selectMemberId);
  const members = useMemo(() => agents.filter((a) => a.active && a.id !== meId), [agents, meId]);

  const picker = useTextPicker<Agent>({
    text,
    setText,
    textarea,
    triggerAt: (value, caret) => (enabled ? mentionTriggerAt(value, caret) : null),
    matchesFor: (trigger) => matchMembers(members, trigger.query),
    openWhenEmpty: false,
    insert: (member, trigger) => {
      const next = insertMention(text, trigger, member.name);
      return { text: next.text, selection: [next.caret, next.caret] };
    },
  });

  const count = picker.matches.length;
  return {
    ...picker,
    picker: picker.open ? (
      <PickerPanel
        picker={picker}
        label="Mention a teammate"
        testId="mention-picker"
        count={count === 1 ? '1 teammate' : `${count} teammates`}
        optionClassName="mention-option"
        optionProps={(member) => ({
          key: member.id,
          testId: 'mention-option',
          data: { 'member-id': member.id },
        })}
        renderOption={(member) => (
          <>
            <WithPresence memberId={member.id}>
              <Avatar name={member.name} colorKey={member.id} size="small" />
            </WithPresence>
            <span className="mention-option-name">
              {member.name}
              <PresenceWords memberId={member.id} />
            </span>
          </>
        )}
      />
    ) : null,
  };
}
