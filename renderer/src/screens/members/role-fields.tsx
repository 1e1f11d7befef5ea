import {
  ASSIGNABLE_ROLES,
  GRANT_LABELS,
  GRANTS,
  ROLE_SUMMARY,
  type AssignableRole,
  type Grant,
} from '../../../../shared/permissions.ts';
import { ROLE_LABELS } from '../../components/member-labels.ts';
import { RadioCards, type RadioChoice } from '../../components/radio-cards.tsx';

const ROLE_CHOICES: readonly RadioChoice<AssignableRole>[] = ASSIGNABLE_ROLES.map((role) => ({
  value: role,
  label: ROLE_LABELS[role],
  help: ROLE_SUMMARY[role],
}));

interface RoleFieldsProps {
  /** Prefix of the inputs' names and test ids. */
  id: string;
  role: AssignableRole;
  rights: readonly Grant[];
  onRole: (role: AssignableRole) => void;
  onRights: (rights: Grant[]) => void;
}

/** A member's role, and the extra rights an agent may be granted (admins hold them already). */
export function RoleFields({ id, role, rights, onRole, onRights }: RoleFieldsProps) {
  const toggle = (grant: Grant, on: boolean) =>
    onRights(GRANTS.filter((g) => (g === grant ? on : rights.includes(g))));
  return (
    <>
      <RadioCards
        name={`${id}-role`}
        legend="Role"
        choices={ROLE_CHOICES}
        value={role}
        onChange={onRole}
        testId={(r) => `${id}-role-${r}`}
      />
      <fieldset className="plain-fieldset">
        <legend className="field-label">Extra rights</legend>
        {role === 'admin' ? (
          <p className="hint">An admin already builds campaigns, templates, lists and workflows.</p>
        ) : (
          GRANTS.map((grant) => (
            <label key={grant} className="check-row">
              <input
                type="checkbox"
                checked={rights.includes(grant)}
                onChange={(event) => toggle(grant, event.target.checked)}
                data-testid={`${id}-grant-${grant}`}
              />
              <span>{GRANT_LABELS[grant]}</span>
            </label>
          ))
        )}
      </fieldset>
    </>
  );
}

/** The extra rights as words ("Workflows"), or a dash. */
export const grantsText = (rights: readonly Grant[]): string =>
  rights.length ? rights.map((g) => GRANT_LABELS[g]).join(', ') : '—';
