import type { ReactNode } from 'react';
import { useInbox } from '../stores/inbox.ts';
import { hrefFor, useRoute, type Route } from '../stores/route.ts';
import {
  ChatIcon,
  CodeIcon,
  FlowIcon,
  ContactsIcon,
  KeyIcon,
  ListIcon,
  MailIcon,
  MegaphoneIcon,
  PhoneIcon,
  ReplyIcon,
  TemplateIcon,
  WalletIcon,
} from './icons.tsx';
import { StreamIndicator } from './stream-indicator.tsx';

function NavLink({
  route,
  icon,
  children,
  badge,
}: {
  route: Route;
  icon: ReactNode;
  children: ReactNode;
  badge?: ReactNode;
}) {
  const active = useRoute((s) => s.route === route);
  return (
    <a
      href={hrefFor(route)}
      className={`nav-link${active ? ' active' : ''}`}
      aria-current={active ? 'page' : undefined}
      data-testid={`nav-${route.replace('/', '-')}`}
    >
      {icon}
      <span>{children}</span>
      {badge}
    </a>
  );
}

function UnreadBadge() {
  const unread = useInbox((s) => s.unreadTotal);
  if (unread <= 0) return null;
  return (
    <span className="nav-badge" aria-label={`${unread} unread`} data-testid="nav-unread">
      {unread > 99 ? '99+' : unread}
    </span>
  );
}

export function Sidebar() {
  return (
    <nav className="sidebar" aria-label="Main">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true">
          P
        </span>
        <span className="brand-name">Parley</span>
      </div>
      <div className="nav-group">
        <NavLink route="inbox" icon={<ChatIcon />} badge={<UnreadBadge />}>
          Inbox
        </NavLink>
        <NavLink route="contacts" icon={<ContactsIcon />}>
          Contacts
        </NavLink>
        <NavLink route="templates" icon={<TemplateIcon />}>
          Templates
        </NavLink>
        <NavLink route="campaigns" icon={<MegaphoneIcon />}>
          Campaigns
        </NavLink>
        <NavLink route="email" icon={<MailIcon />}>
          Email
        </NavLink>
        <NavLink route="canned-replies" icon={<ReplyIcon />}>
          Canned replies
        </NavLink>
        <NavLink route="interactive-lists" icon={<ListIcon />}>
          Interactive lists
        </NavLink>
        <NavLink route="workflows" icon={<FlowIcon />}>
          Workflows
        </NavLink>
        <NavLink route="wallet" icon={<WalletIcon />}>
          Wallet
        </NavLink>
      </div>
      <div className="nav-group">
        <div className="nav-heading">Developers</div>
        <NavLink route="playground" icon={<CodeIcon />}>
          API playground
        </NavLink>
      </div>
      <div className="nav-group">
        <div className="nav-heading">Settings</div>
        <NavLink route="settings/keys" icon={<KeyIcon />}>
          API keys
        </NavLink>
        <NavLink route="settings/channel" icon={<PhoneIcon />}>
          Channel
        </NavLink>
      </div>
      <StreamIndicator />
    </nav>
  );
}
