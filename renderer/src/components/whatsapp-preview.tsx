import type { ReactNode } from 'react';
import type { MessageStatus, TemplateButton } from '../../../shared/schemas/index.ts';
import { segments } from './template-text.ts';
import { CopyIcon, ExternalIcon, PhoneIcon, ReplyIcon } from './icons.tsx';
import { Ticks } from './ticks.tsx';

const time = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
export const formatClock = (date: Date): string => time.format(date);

const INLINE = /(\*[^*\n]+\*|_[^_\n]+_|~[^~\n]+~|```[^`]+```)/g;

/** WhatsApp's inline formatting: *bold*, _italic_, ~strikethrough~, ```monospace```. */
export function formatInline(text: string): ReactNode[] {
  return text.split(INLINE).map((part, i) => {
    if (part.length > 2) {
      if (part.startsWith('```') && part.endsWith('```') && part.length > 6)
        return <code key={i}>{part.slice(3, -3)}</code>;
      const inner = part.slice(1, -1);
      if (part.startsWith('*') && part.endsWith('*')) return <strong key={i}>{inner}</strong>;
      if (part.startsWith('_') && part.endsWith('_')) return <em key={i}>{inner}</em>;
      if (part.startsWith('~') && part.endsWith('~')) return <s key={i}>{inner}</s>;
    }
    return part;
  });
}

function WithSamples({ text, samples }: { text: string; samples: Record<string, string> }) {
  return (
    <>
      {segments(text, samples).map((segment, i) =>
        segment.kind === 'text' ? (
          <span key={i}>{formatInline(segment.text)}</span>
        ) : segment.value ? (
          <span key={i} className="wa-var-filled" title={`{{${segment.n}}}`}>
            {segment.value}
          </span>
        ) : (
          <span key={i} className="wa-var-empty">{`{{${segment.n}}}`}</span>
        ),
      )}
    </>
  );
}

const BUTTON_ICONS: Record<TemplateButton['type'], () => ReactNode> = {
  QUICK_REPLY: ReplyIcon,
  URL: ExternalIcon,
  PHONE_NUMBER: PhoneIcon,
  COPY_CODE: CopyIcon,
};

export interface PreviewProps {
  header?: string;
  body: string;
  footer?: string;
  buttons?: Pick<TemplateButton, 'type' | 'text'>[];
  samples?: Record<string, string>;
  status?: MessageStatus;
  businessName?: string;
  testId?: string;
}

/** A template as the recipient's phone shows it: a chat bubble on WhatsApp's wallpaper. */
export function WhatsAppPreview({
  header,
  body,
  footer,
  buttons = [],
  samples = {},
  status = 'read',
  businessName = 'Your business',
  testId = 'template-preview',
}: PreviewProps) {
  const empty = !body.trim() && !header?.trim() && !footer?.trim() && buttons.length === 0;
  return (
    <div className="wa-phone" data-testid={testId}>
      <div className="wa-appbar">
        <span className="wa-avatar" aria-hidden="true">
          {businessName.trim().charAt(0).toUpperCase() || 'B'}
        </span>
        <span className="wa-appbar-text">
          <span className="wa-appbar-name">{businessName}</span>
          <span className="wa-appbar-sub">Business account</span>
        </span>
      </div>
      <div className="wa-chat wa-wallpaper">
        <div className="wa-day">Today</div>
        {empty ? (
          <p className="wa-placeholder">Start typing the body: the message appears here.</p>
        ) : (
          <div className="wa-group wa-group-out">
            <div className="wa-bubble wa-bubble-out">
              {header?.trim() ? (
                <div className="wa-header" data-testid="preview-header">
                  <WithSamples text={header} samples={samples} />
                </div>
              ) : null}
              <div className="wa-body" data-testid="preview-body">
                <WithSamples text={body} samples={samples} />
              </div>
              {footer?.trim() ? (
                <div className="wa-footer" data-testid="preview-footer">
                  {footer}
                </div>
              ) : null}
              <div className="wa-meta">
                <span>{formatClock(new Date())}</span>
                <Ticks status={status} />
              </div>
            </div>
            {buttons.map((button, i) => {
              const ButtonIcon = BUTTON_ICONS[button.type];
              return (
                <div key={i} className="wa-button" data-testid="preview-button">
                  <ButtonIcon />
                  <span className="truncate">{button.text || 'Button'}</span>
                </div>
              );
            })}
          </div>
        )}
      </div>
    </div>
  );
}
