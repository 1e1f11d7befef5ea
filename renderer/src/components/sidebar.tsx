import type { ReactNode } from 'react';
import { useInbox } from '../stores/inbox.ts';
import { hrefFor, ROUTES, SCREEN_NAMES, useRoute, type Route } from '../stores/route.ts';
import {
  ChatIcon,
  CodeIcon,
  FlowIcon,
  ContactsIcon,
  KeyIcon,
  ListIcon,
  LogIcon,
  MailIcon,
  MegaphoneIcon,
  NetworkIcon,
  PersonIcon,
  PhoneIcon,
  ReplyIcon,
  SendIcon,
  ShieldIcon,
  SlidersIcon,
  TemplateIcon,
  WalletIcon,
} from './icons.tsx';
import { StreamIndicator } from './stream-indicator.tsx';
import { useCanOpen, useCanOpenAny } from './use-can.ts';

/** A screen's link, shown only to members who may open it. */
function NavLink({ route, icon, badge }: { route: Route; icon: ReactNode; badge?: ReactNode }) {
  const active = useRoute((s) => s.route === route);
  const allowed = useCanOpen(route);
  if (!allowed) return null;
  return (
    <a
      href={hrefFor(route)}
      className={`nav-link${active ? ' active' : ''}`}
      aria-current={active ? 'page' : undefined}
      data-testid={`nav-${route.replace('/', '-')}`}
    >
      {icon}
      <span>{SCREEN_NAMES[route]}</span>
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

/** A titled group of links; without a link the member may open, no heading either. */
function NavGroup({
  heading,
  routes,
  children,
}: {
  heading: string;
  routes: readonly Route[];
  children: ReactNode;
}) {
  const shown = useCanOpenAny(routes);
  if (!shown) return null;
  return (
    <div className="nav-group">
      <div className="nav-heading">{heading}</div>
      {children}
    </div>
  );
}

const DEVELOPER_ROUTES: readonly Route[] = ['playground', 'webhooks'];
const SETTINGS_ROUTES = ROUTES.filter((route) => route.startsWith('settings/'));

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
        <NavLink route="inbox" icon={<ChatIcon />} badge={<UnreadBadge />} />
        <NavLink route="contacts" icon={<ContactsIcon />} />
        <NavLink route="templates" icon={<TemplateIcon />} />
        <NavLink route="campaigns" icon={<MegaphoneIcon />} />
        <NavLink route="email" icon={<MailIcon />} />
        <NavLink route="canned-replies" icon={<ReplyIcon />} />
        <NavLink route="interactive-lists" icon={<ListIcon />} />
        <NavLink route="workflows" icon={<FlowIcon />} />
        <NavLink route="wallet" icon={<WalletIcon />} />
      </div>
      <NavGroup heading="Developers" routes={DEVELOPER_ROUTES}>
        <NavLink route="playground" icon={<CodeIcon />} />
        <NavLink route="webhooks" icon={<SendIcon />} />
      </NavGroup>
      <NavGroup heading="Settings" routes={SETTINGS_ROUTES}>
        <NavLink route="settings/workspace" icon={<SlidersIcon />} />
        <NavLink route="settings/keys" icon={<KeyIcon />} />
        <NavLink route="settings/channel" icon={<PhoneIcon />} />
        <NavLink route="settings/members" icon={<ShieldIcon />} />
        <NavLink route="settings/team" icon={<NetworkIcon />} />
        <NavLink route="settings/audit" icon={<LogIcon />} />
        <NavLink route="settings/account" icon={<PersonIcon />} />
      </NavGroup>
      <StreamIndicator />
    </nav>
  );
}
