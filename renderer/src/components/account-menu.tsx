import { isDesktop } from '../api/client.ts';
import { useRoute } from '../stores/route.ts';
import { selectMember, useSession } from '../stores/session.ts';
import { notifyError } from '../stores/toasts.ts';
import { Avatar } from './avatar.tsx';
import { Dropdown, MenuButton } from './dropdown.tsx';
import { ROLE_LABELS } from './member-labels.ts';

/**
 * Who is signed in, in the top bar: their name and role, their account, and signing out. The
 * desktop window acts as the workspace's owner and has no sign-out: closing the app ends it.
 */
export function AccountMenu() {
  const member = useSession(selectMember);
  const signOut = useSession((s) => s.signOut);
  const navigate = useRoute((s) => s.navigate);
  if (!member) return null;

  return (
    <Dropdown
      align="right"
      className="account-trigger"
      // No label of its own: the button says the name and role it shows, so speech input can
      // name it; aria-haspopup tells that it opens a menu.
      testId="account-menu"
      trigger={
        <>
          <Avatar name={member.name} colorKey={member.id} size="small" />
          <span className="account-trigger-text">
            <span className="account-trigger-name" data-testid="current-member">
              {member.name}
            </span>{' '}
            <span className="account-trigger-label" data-testid="current-role">
              {ROLE_LABELS[member.role]}
            </span>
          </span>
          <span className="caret" aria-hidden="true" />
        </>
      }
    >
      {(close) => (
        <>
          <div className="menu-heading">Signed in as {member.email ?? member.name}</div>
          <MenuButton
            onSelect={() => {
              close();
              navigate('settings/account');
            }}
            testId="menu-account"
          >
            Your account
          </MenuButton>
          {isDesktop() ? null : (
            <MenuButton
              onSelect={() => {
                close();
                signOut().catch(notifyError);
              }}
              testId="sign-out"
            >
              Sign out
            </MenuButton>
          )}
        </>
      )}
    </Dropdown>
  );
}
