import { useId, useRef, useState, type ReactNode } from 'react';
import type { MessageStatus, TemplateButton } from '../../../shared/schemas/index.ts';
import { ChatText } from './chat-text.tsx';
import { segments } from './template-text.ts';
import { CopyIcon, ExternalIcon, PhoneIcon, ReplyIcon } from './icons.tsx';
import { formatClock } from './format.ts';
import { ListButton, ListSheet, type ListView } from './interactive-list.tsx';
import { Ticks } from './ticks.tsx';

function WithSamples({ text, samples }: { text: string; samples: Record<string, string> }) {
  return (
    <>
      {segments(text, samples).map((segment, i) =>
        segment.kind === 'text' ? (
          <span key={i}>
            <ChatText text={segment.text} />
          </span>
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
  /** An interactive list: its button under the text opens the sheet of its rows. */
  list?: ListView;
  samples?: Record<string, string>;
  status?: MessageStatus;
  businessName?: string;
  testId?: string;
}

/**
 * A message as the recipient's phone shows it (a template, an interactive list): a chat bubble on
 * WhatsApp's wallpaper.
 */
export function WhatsAppPreview({
  header,
  body,
  footer,
  buttons = [],
  list,
  samples = {},
  status = 'read',
  businessName = 'Your business',
  testId = 'template-preview',
}: PreviewProps) {
  const [sheetOpen, setSheetOpen] = useState(false);
  const sheetId = useId();
  const listButton = useRef<HTMLButtonElement>(null);
  const empty = !body.trim() && !header?.trim() && !footer?.trim() && buttons.length === 0;
  const closeSheet = () => {
    setSheetOpen(false);
    listButton.current?.focus();
  };
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
              {list ? (
                <ListButton
                  ref={listButton}
                  text={list.buttonText}
                  expanded={sheetOpen}
                  controls={sheetId}
                  onClick={() => setSheetOpen(true)}
                  testId="preview-list-button"
                />
              ) : null}
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
      {list && sheetOpen ? <ListSheet list={list} id={sheetId} onClose={closeSheet} /> : null}
    </div>
  );
}
