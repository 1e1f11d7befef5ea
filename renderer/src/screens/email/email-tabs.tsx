import { hrefFor } from '../../stores/route.ts';

export type EmailSection = 'campaigns' | 'settings';

const SECTIONS: { value: EmailSection; label: string; subPath: string | null }[] = [
  { value: 'campaigns', label: 'Campaigns', subPath: null },
  { value: 'settings', label: 'Settings', subPath: 'settings' },
];

/** The Email screen's two parts, as links (each has its own address). */
export function EmailTabs({ current }: { current: EmailSection }) {
  return (
    <nav className="tabs email-tabs" aria-label="Email">
      {SECTIONS.map((section) => (
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
