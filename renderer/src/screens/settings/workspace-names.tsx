import {
  DISPLAY_NAME_MAX,
  displayNameRule,
} from '../../../../shared/schemas/workspace-settings.ts';
import type { WorkspaceSettings, WorkspaceSettingsBody } from '../../api/client.ts';
import { TextField } from '../../components/text-field.tsx';
import { useSettingsForm } from '../../components/use-settings-form.ts';
import { useWorkspaceSettings } from '../../stores/workspace-settings.ts';
import { SaveFoot, WorkspaceCard } from './workspace-fields.tsx';

type NameField = 'name' | 'businessAccountName';
const FIELDS: readonly NameField[] = ['name', 'businessAccountName'];
const FIELD_ID: Record<NameField, string> = {
  name: 'ws-name',
  businessAccountName: 'ws-account-name',
};
const WHAT: Record<NameField, string> = {
  name: 'the workspace’s name',
  businessAccountName: 'the business account’s name',
};

interface Draft {
  name: string;
  businessAccountName: string;
}

const draftOf = (s: WorkspaceSettings): Draft => ({
  name: s.name,
  businessAccountName: s.businessAccountName,
});

/** What is wrong with a typed name by the rule the core applies (shared/), said for people. */
export function nameProblem(field: NameField, typed: string): string | null {
  const checked = displayNameRule(field).safeParse(typed);
  if (checked.success) return null;
  const issue = checked.error.issues[0]!;
  if (issue.code === 'too_small') return `Enter ${WHAT[field]}.`;
  if (issue.code === 'too_big') {
    return `At most ${DISPLAY_NAME_MAX} characters (this one has ${typed.trim().length}).`;
  }
  return 'One line of text, without tabs or line breaks.';
}

/**
 * Names: the workspace's (the top bar, invites) and its business account's (the top bar and
 * message previews), saved together through `PATCH /api/workspace/settings` — only what changed
 * is sent — then shown at once wherever the app shows them.
 */
export function NamesSection({ settings }: { settings: WorkspaceSettings }) {
  const update = useWorkspaceSettings((s) => s.update);
  const form = useSettingsForm<WorkspaceSettings, Draft>({
    settings,
    draftOf,
    check: (d) => {
      const found: Record<string, string> = {};
      for (const field of FIELDS) {
        const why = nameProblem(field, d[field]);
        if (why) found[field] = why;
      }
      return found;
    },
    order: FIELDS,
    paramOf: (param) => (FIELDS.includes(param as NameField) ? (param as NameField) : null),
    fieldId: (param) => FIELD_ID[param as NameField],
    send: (d, s) => {
      const patch: WorkspaceSettingsBody = {};
      for (const field of FIELDS) if (d[field].trim() !== s[field]) patch[field] = d[field];
      return update(patch);
    },
    onSaved: () => undefined,
    savedMessage: 'Names saved.',
  });
  const field = (name: NameField) => ({
    value: form.draft[name],
    error: form.errors[name],
    onChange: (value: string) => form.change({ [name]: value }, [name]),
  });
  return (
    <WorkspaceCard id="ws-names" title="Names">
      <form className="form-stack" onSubmit={form.submit} noValidate>
        <TextField
          id={FIELD_ID.name}
          label="Workspace name"
          {...field('name')}
          hint="Shown in the top bar of every screen and in the invitations you send."
        />
        <TextField
          id={FIELD_ID.businessAccountName}
          label="Business account name"
          {...field('businessAccountName')}
          hint="How Parley names your business: in the top bar and in the previews of templates, lists and campaigns."
        />
        <SaveFoot form={form} id="ws-names" label="Save names" />
      </form>
    </WorkspaceCard>
  );
}
