import { useCan } from '../../components/use-can.ts';
import { hrefFor } from '../../stores/route.ts';

export type EmailSection = 'campaigns' | 'settings';

const SECTIONS: { value: EmailSection; label: string; subPath: string | null }[] = [
  { value: 'campaigns', label: 'Campaigns', subPath: null },
  { value: 'settings', label: 'Settings', subPath: 'settings' },
];

/** The Email screen's two parts, as links (each has its own address). */
export function EmailTabs({ current }: { current: EmailSection }) {
  // The settings are an administrator's: others do not see the tab.
  const settings = useCan('email_settings.read');
  return (
    <nav className="tabs email-tabs" aria-label="Email">
      {SECTIONS.filter((s) => settings || s.value !== 'settings').map((section) => (
        <a
          key={section.value}
          href={hrefFor('email', section.subPath)}
          className={`tab${current === section.value ? ' selected' : ''}`}
          aria-current={current === section.value ? 'page' : undefined}
          data-testid={`email-tab-${section.value}`}
        >
          {section.label}
        </a>
      ))}
    </nav>
  );
}
