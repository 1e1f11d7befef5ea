import { useEffect, useState, type ReactNode } from 'react';
import { useInbox } from '../stores/inbox.ts';
import { hrefFor, ROUTES, SCREEN_NAMES, useRoute, type Route } from '../stores/route.ts';
import {
  ChatIcon,
  ClockIcon,
  CodeIcon,
  FlowIcon,
  ContactsIcon,
  KeyIcon,
  ListIcon,
  LogIcon,
  MailIcon,
  MegaphoneIcon,
  NetworkIcon,
  PanelIcon,
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
import './sidebar.css';
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
      // Collapsed to icons, the name shows on hover (it stays the link's accessible name).
      title={SCREEN_NAMES[route]}
      data-testid={`nav-${route.replace('/', '-')}`}
    >
      {icon}
      <span className="nav-label">{SCREEN_NAMES[route]}</span>
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

/** The member's choice, kept in this browser: the sidebar with names, or icons only. */
const SIDEBAR_KEY = 'parley.sidebar';
/** With no choice made, a window narrower than this shows the sidebar as icons only. */
const NARROW_QUERY = '(max-width: 1099px)';

type SidebarChoice = 'expanded' | 'collapsed' | null;

function readChoice(): SidebarChoice {
  try {
    const value = localStorage.getItem(SIDEBAR_KEY);
    return value === 'expanded' || value === 'collapsed' ? value : null;
  } catch {
    return null;
  }
}

function writeChoice(choice: Exclude<SidebarChoice, null>): void {
  try {
    localStorage.setItem(SIDEBAR_KEY, choice);
  } catch {
    // Storage can be unavailable (private windows): the choice then lasts a session.
  }
}

/** Whether the sidebar shows icons only: the member's choice, else by the window's width. */
function useCollapsed(): [boolean, () => void] {
  const [choice, setChoice] = useState<SidebarChoice>(readChoice);
  const [narrow, setNarrow] = useState(() => window.matchMedia(NARROW_QUERY).matches);
  useEffect(() => {
    const query = window.matchMedia(NARROW_QUERY);
    const onChange = () => setNarrow(query.matches);
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, []);
  const collapsed = choice ? choice === 'collapsed' : narrow;
  const toggle = () => {
    const next = collapsed ? 'expanded' : 'collapsed';
    writeChoice(next);
    setChoice(next);
  };
  return [collapsed, toggle];
}

const DEVELOPER_ROUTES: readonly Route[] = ['playground', 'webhooks'];
const SETTINGS_ROUTES = ROUTES.filter((route) => route.startsWith('settings/'));

export function Sidebar() {
  const [collapsed, toggle] = useCollapsed();
  return (
    <nav
      className={`sidebar${collapsed ? ' sidebar-collapsed' : ''}`}
      aria-label="Main"
      data-testid="sidebar"
      data-collapsed={collapsed}
    >
      <div className="brand">
        <span className="brand-mark" aria-hidden="true">
          P
        </span>
        <span className="brand-name">Parley</span>
        <button
          type="button"
          className="sidebar-toggle"
          aria-label="Screen names"
          aria-expanded={!collapsed}
          title={collapsed ? 'Show the screens’ names' : 'Collapse the sidebar to icons'}
          onClick={toggle}
          data-testid="sidebar-toggle"
        >
          <PanelIcon />
        </button>
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
        <NavLink route="settings/simulator" icon={<ClockIcon />} />
        <NavLink route="settings/members" icon={<ShieldIcon />} />
        <NavLink route="settings/team" icon={<NetworkIcon />} />
        <NavLink route="settings/audit" icon={<LogIcon />} />
        <NavLink route="settings/account" icon={<PersonIcon />} />
      </NavGroup>
      <StreamIndicator />
    </nav>
  );
}
