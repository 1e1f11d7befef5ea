import { useEffect, useId, useMemo, useState } from 'react';
import { MARKDOWN_MAX, type BodyFormat } from '../../../../shared/email-markdown.ts';
import { EMAIL_LIMITS, renderEmailText } from '../../../../shared/email-rules.ts';
import { PLACEHOLDER_HELP } from '../../../../shared/placeholders.ts';
import { CountedField } from '../../components/counted-field.tsx';
import { EditorPreview, EditorSection } from '../../components/editor-section.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { errorAria, FieldError } from '../../components/field-error.tsx';
import { formatDateTime } from '../../components/format.ts';
import { PageHeader } from '../../components/page-header.tsx';
import { focusElement } from '../../components/server-errors.ts';
import { Tab } from '../../components/tab.tsx';
import { useDebounced } from '../../components/use-debounced.ts';
import { useEmailCampaigns } from '../../stores/email.ts';
import {
  emailApi,
  type EmailCampaign,
  type EmailCampaignStatus,
  type EmailMessage,
} from '../../stores/email-api.ts';
import { hrefFor, useRoute } from '../../stores/route.ts';
import { selectIsTestMode, useSession } from '../../stores/session.ts';
import { AudienceField, AudienceTotal, MissingPlaceholders } from '../campaigns/audience-field.tsx';
import { fieldOfKey, targetOf } from '../campaigns/campaign-draft.ts';
import { EditorActions, ScheduleField } from '../campaigns/editor-parts.tsx';
import { useCampaignForm } from '../campaigns/use-campaign-form.ts';
import { useGroups } from '../campaigns/use-groups.ts';
import {
  bodyHtml,
  checkEmailDraft,
  createBody,
  draftFromEmailCampaign,
  emptyEmailDraft,
  fieldForParam,
  fieldId,
  firstField,
  liveProblems,
  scheduledForOf,
  switchFormat,
  updateBody,
  type EmailDraft,
  type Field,
} from './email-draft.ts';
import { describeAudience } from './email-format.ts';
import { EmailLaunchDialog } from './email-launch-dialog.tsx';
import { EmailFrame, EmailTextPreview } from './email-preview.tsx';
import { approximateText } from './email-preview-html.ts';
import { EmailTestSend } from './email-test-send.tsx';
import { useEmailAudience, type EmailAudienceCheck } from './use-email-audience.ts';
import { useSampleContact } from './use-sample-contact.ts';
import { PillChoice } from './pill-choice.tsx';

type BodyTab = 'html' | 'text';

/** How long typing in Markdown pauses before the preview renders it again. */
const MARKDOWN_PREVIEW_DELAY_MS = 200;

/** The core's messages start in lower case ("subject is required"); under a field they lead. */
const asSentence = (message: string): string => message.charAt(0).toUpperCase() + message.slice(1);

function focusField(field: Field): void {
  window.requestAnimationFrame(() => focusElement(document.getElementById(fieldId(field))));
}

/**
 * How many an email campaign's audience reaches, whom it leaves out, and which placeholders of
 * the email its recipients have no value for.
 */
function EmailAudienceCount({ check }: { check: EmailAudienceCheck }) {
  const { result } = check;
  return (
    <>
      <AudienceTotal check={check} describe={describeAudience} testId="email-audience-count" />
      {result ? (
        <MissingPlaceholders
          missing={result.missingPlaceholders}
          consequence="Those recipients get the email with that spot left empty."
          testId="email-missing-warning"
        />
      ) : null}
      {result && result.total === 0 ? (
        <p className="banner banner-warning">
          <span className="banner-text">
            Nobody to email: a campaign needs at least one contact with an email address who has not
            unsubscribed.
          </span>
        </p>
      ) : (
        <p className="hint">
          Only contacts with an email address who have not unsubscribed receive it; each gets it
          once.
        </p>
      )}
    </>
  );
}

/** "Markdown | HTML": how the body is written; a radio group, so arrows move between the two. */
function BodyFormatToggle({
  format,
  onChange,
}: {
  format: BodyFormat;
  onChange: (format: BodyFormat) => void;
}) {
  const options: { value: BodyFormat; label: string }[] = [
    { value: 'markdown', label: 'Markdown' },
    { value: 'html', label: 'HTML' },
  ];
  return (
    <PillChoice
      legend="Write the body in"
      name="email-body-format"
      options={options}
      value={format}
      onChange={onChange}
      testId="email-format"
      testIdPrefix="email-format"
    >
      <span className="hint email-format-note">
        {format === 'markdown'
          ? 'Switching to HTML keeps what this Markdown makes, to edit as HTML.'
          : 'Switching to Markdown writes the body anew: HTML is not turned into Markdown.'}
      </span>
    </PillChoice>
  );
}

interface EmailFormProps {
  /** The draft or scheduled campaign to edit, or null for a new one. */
  campaign: EmailCampaign | null;
  /** A new campaign was saved for the first time. */
  onCreated?: (campaign: EmailCampaign) => void;
}

/**
 * Creates or edits an email campaign (a draft, or a scheduled one): its sender, audience (counted
 * live), subject and body; sends a test; saves it, or launches it now or for later. The preview
 * beside it shows the email filled in for one of the recipients, as their mail app would.
 */
export function EmailForm({ campaign, onCreated }: EmailFormProps) {
  const testMode = useSession(selectIsTestMode);
  const navigate = useRoute((s) => s.navigate);
  const applyToList = useEmailCampaigns((s) => s.apply);
  const groups = useGroups();
  const formId = useId();

  const [savedId, setSavedId] = useState<string | null>(campaign?.id ?? null);
  const [savedStatus, setSavedStatus] = useState<EmailCampaignStatus | null>(
    campaign?.status ?? null,
  );
  /** Fields the user has left: an address is judged once typed, not while typing. */
  const [left, setLeft] = useState<ReadonlySet<string>>(new Set());
  const [bodyTab, setBodyTab] = useState<BodyTab>('html');

  const show = (field: Field) => {
    if (field === 'html' || field === 'markdown') setBodyTab('html');
    if (field === 'text') setBodyTab('text');
    focusField(field);
  };
  const form = useCampaignForm({
    initial: (): EmailDraft => (campaign ? draftFromEmailCampaign(campaign) : emptyEmailDraft()),
    route: 'email',
    fieldOfKey: (key) => fieldOfKey(key, 'audience') as Field,
    check: (d, launching) => checkEmailDraft(d, { launching }),
    firstField,
    fieldForParam,
    show,
    fieldMessage: asSentence,
  });
  const { draft, setDraft, change, errors, busy, setBusy, setFormError, validate, showError } =
    form;

  // A new campaign starts from the sender set in the email settings.
  useEffect(() => {
    if (campaign) return;
    let cancelled = false;
    emailApi.settings().then(
      (settings) => {
        if (cancelled) return;
        const defaults = emptyEmailDraft(settings);
        setDraft((d) => ({
          ...d,
          fromName: d.fromName || defaults.fromName,
          fromEmail: d.fromEmail || defaults.fromEmail,
        }));
      },
      () => {
        // No defaults: the sender is typed in.
      },
    );
    return () => {
      cancelled = true;
    };
  }, [campaign, setDraft]);

  // What goes out: the HTML written, or the one the Markdown renders (the same markdown-it as the
  // core's); the preview, the audience check and the plain-text version all read it. The
  // Markdown is rendered once typing pauses, not on every keystroke of a long body.
  const [settledMarkdown, setSettledMarkdown] = useState(draft.markdown);
  useDebounced(draft.markdown, setSettledMarkdown, MARKDOWN_PREVIEW_DELAY_MS);
  const html = useMemo(
    () => bodyHtml({ format: draft.format, html: draft.html, markdown: settledMarkdown }),
    [draft.format, draft.html, settledMarkdown],
  );
  const audience = targetOf(draft);
  const check = useEmailAudience(
    audience
      ? {
          audience,
          subject: draft.subject.slice(0, EMAIL_LIMITS.subject),
          html: html.slice(0, EMAIL_LIMITS.html),
          text: draft.text.slice(0, EMAIL_LIMITS.text),
        }
      : null,
  );
  const sample = useSampleContact(audience);
  const live = liveProblems(draft, left);
  const errorFor = (field: Field): string | undefined => errors[field] ?? live[field];
  const audienceError =
    errors.audience ??
    (check.state === 'error' &&
    (!check.error?.param || fieldForParam(check.error.param) === 'audience')
      ? asSentence(check.error?.message ?? '')
      : undefined);

  const leave = (field: Field) => setLeft((s) => (s.has(field) ? s : new Set(s).add(field)));

  /** Creates the campaign, or saves its changes; the address then names it. */
  const persist = async (scheduledFor: string | null): Promise<EmailCampaign> => {
    const saved = savedId
      ? await emailApi.update(savedId, updateBody(draft, scheduledFor))
      : await emailApi.create({ ...createBody(draft), ...(scheduledFor ? { scheduledFor } : {}) });
    applyToList(saved);
    setSavedStatus(saved.status);
    if (!savedId) {
      setSavedId(saved.id);
      onCreated?.(saved);
    }
    return saved;
  };

  const scheduled = savedStatus === 'scheduled';
  /** A scheduled campaign saved with "later" keeps a schedule (the time in the form). */
  const keptSchedule = (): string | null =>
    scheduled && draft.when === 'later' ? scheduledForOf(draft) : null;

  const save = () =>
    form.save(
      () => persist(keptSchedule()),
      (saved) =>
        saved.status === 'scheduled'
          ? `Saved “${saved.name}”: it is scheduled for ${formatDateTime(saved.scheduledFor)}.`
          : `Saved the draft “${saved.name}”.`,
    );

  const sendTest = async (to: string, contactId?: string): Promise<EmailMessage> => {
    if (busy) throw new Error('Wait for the save under way to finish.');
    if (!validate(false)) throw new Error('Fix the fields marked above first.');
    setBusy('test');
    setFormError(null);
    try {
      let saved: EmailCampaign;
      try {
        saved = await persist(keptSchedule());
      } catch (e) {
        showError(e);
        throw new Error('The campaign could not be saved (see above).', { cause: e });
      }
      return await emailApi.sendTest(saved.id, to, contactId);
    } finally {
      setBusy(null);
    }
  };

  const scheduledFor = scheduledForOf(draft);

  const launch = () =>
    form.launch(async () => {
      // Already scheduled: saving the new time is all it takes.
      if (scheduled && scheduledFor) return persist(scheduledFor);
      const saved = await persist(null);
      const launched = await emailApi.launch(saved.id, scheduledFor ?? undefined);
      applyToList(launched);
      return launched;
    });

  const text = (
    field: 'name' | 'subject' | 'fromName',
    label: string,
    props: { max: number; placeholder: string; hint?: string; optional?: boolean },
  ) => (
    <CountedField
      id={fieldId(field)}
      label={
        props.optional ? (
          <>
            {label} <span className="optional">(optional)</span>
          </>
        ) : (
          label
        )
      }
      value={draft[field]}
      max={props.max}
      error={errorFor(field)}
      onChange={(value) => change({ [field]: value })}
      onBlur={() => leave(field)}
      placeholder={props.placeholder}
      hint={props.hint}
      testId={fieldId(field)}
    />
  );

  const address = (field: 'fromEmail' | 'replyTo', label: string, hint: string) => {
    const id = fieldId(field);
    const message = errorFor(field);
    return (
      <div className="field">
        <label htmlFor={id}>
          {label}
          {field === 'replyTo' ? <span className="optional">(optional)</span> : null}
        </label>
        <input
          id={id}
          type="email"
          className={`input${message ? ' invalid' : ''}`}
          value={draft[field]}
          placeholder={field === 'fromEmail' ? 'news@yourshop.com' : 'help@yourshop.com'}
          autoComplete="off"
          spellCheck={false}
          {...errorAria(id, message, message ? undefined : `${id}-hint`)}
          onChange={(event) => change({ [field]: event.target.value })}
          onBlur={() => leave(field)}
          data-testid={id}
        />
        <FieldError fieldId={id} message={message} />
        {message ? null : (
          <p className="hint" id={`${id}-hint`}>
            {hint}
          </p>
        )}
      </div>
    );
  };

  const fromLine = draft.fromName.trim()
    ? `${draft.fromName.trim()} <${draft.fromEmail.trim() || '…'}>`
    : draft.fromEmail.trim() || '—';
  const subjectShown = renderEmailText(draft.subject, sample.contact).trim();

  return (
    <div className="screen screen-wide" data-testid="email-editor">
      <PageHeader
        eyebrow={
          <a href={hrefFor('email')} className="link-button">
            ← Email
          </a>
        }
        title={
          !savedId
            ? 'New email campaign'
            : scheduled
              ? 'Edit scheduled email campaign'
              : 'Edit draft email campaign'
        }
        description="Who it comes from and goes to, what it says, and when it goes out. Send yourself a test, save it to finish later, or launch it."
        actions={
          <EditorActions
            testIdPrefix="email"
            busy={busy}
            onCancel={() => navigate('email', savedId && scheduled ? savedId : null)}
            onSave={() => void save()}
            saveLabel={
              scheduled ? (draft.when === 'later' ? 'Save changes' : 'Save as draft') : 'Save draft'
            }
            formId={formId}
            later={draft.when === 'later'}
          />
        }
      />

      {form.formError ? <ErrorBanner message={form.formError} testId="email-form-error" /> : null}

      <div className="editor-grid email-editor-grid">
        <form
          id={formId}
          className="card editor-form"
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            form.askLaunch();
          }}
          data-testid="email-form"
        >
          <EditorSection title="Campaign">
            {text('name', 'Name', {
              max: EMAIL_LIMITS.name,
              placeholder: 'Spring newsletter',
              hint: 'Only you and your team see it.',
            })}
          </EditorSection>

          <EditorSection title="Sender">
            <div className="form-grid-2">
              {text('fromName', 'From name', {
                max: EMAIL_LIMITS.fromName,
                placeholder: 'Your shop',
                optional: true,
                hint: 'How inboxes name you.',
              })}
              {address(
                'fromEmail',
                'From email',
                'An address at a domain you send from (see DKIM in settings).',
              )}
            </div>
            {address('replyTo', 'Reply-to', 'Where replies go, when not to the from address.')}
          </EditorSection>

          <EditorSection title="Recipients">
            <AudienceField
              draft={draft}
              onChange={change}
              groups={groups}
              error={audienceError}
              count={<EmailAudienceCount check={check} />}
            />
          </EditorSection>

          <EditorSection title="Message">
            {text('subject', 'Subject', {
              max: EMAIL_LIMITS.subject,
              placeholder: 'Our spring collection is here, {{contact.name}}',
              hint: `Placeholders are filled in for each recipient: ${PLACEHOLDER_HELP}.`,
            })}
            <div className="tabs email-body-tabs" role="tablist" aria-label="Email body">
              <Tab
                selected={bodyTab === 'html'}
                onSelect={() => setBodyTab('html')}
                testId="email-tab-html"
              >
                {draft.format === 'markdown' ? 'Markdown' : 'HTML'}
              </Tab>
              <Tab
                selected={bodyTab === 'text'}
                onSelect={() => setBodyTab('text')}
                testId="email-tab-text"
              >
                Plain text
                {draft.text.trim() ? null : <span className="tab-count">auto</span>}
              </Tab>
            </div>
            <div
              role="tabpanel"
              aria-label={
                bodyTab === 'text'
                  ? 'Plain text'
                  : draft.format === 'markdown'
                    ? 'Markdown'
                    : 'HTML'
              }
              className="email-body-panel"
            >
              {bodyTab === 'html' ? (
                <BodyFormatToggle
                  format={draft.format}
                  onChange={(format) => change(switchFormat(draft, format))}
                />
              ) : null}
              {bodyTab === 'html' && draft.format === 'markdown' ? (
                <CountedField
                  id={fieldId('markdown')}
                  label="Markdown body"
                  value={draft.markdown}
                  max={MARKDOWN_MAX}
                  error={errorFor('markdown')}
                  onChange={(value) => change({ markdown: value })}
                  rows={16}
                  mono
                  hint="# for a heading, **bold**, *italic*, - for a list, [text](https://…) for a link; an empty line starts a paragraph. HTML tags show as written: switch to HTML for them. Saved as Markdown; recipients get the HTML it makes (the preview), with links tracked."
                  testId={fieldId('markdown')}
                />
              ) : bodyTab === 'html' ? (
                <CountedField
                  id={fieldId('html')}
                  label="HTML body"
                  value={draft.html}
                  max={EMAIL_LIMITS.html}
                  error={errorFor('html')}
                  onChange={(value) => change({ html: value })}
                  rows={16}
                  mono
                  hint="Paste the HTML from your email designer, or write it here. Scripts, forms and embedded frames are removed before sending; links are tracked."
                  testId={fieldId('html')}
                />
              ) : (
                <CountedField
                  id={fieldId('text')}
                  label={
                    <>
                      Plain-text body <span className="optional">(optional)</span>
                    </>
                  }
                  value={draft.text}
                  max={EMAIL_LIMITS.text}
                  error={errorFor('text')}
                  onChange={(value) => change({ text: value })}
                  rows={16}
                  placeholder="Leave empty to send a plain-text version made from the HTML."
                  hint="Mail apps that do not show HTML (and some spam filters) read this version. Empty: Parley makes it from the HTML when sending."
                  testId={fieldId('text')}
                />
              )}
              {bodyTab === 'text' && !draft.text.trim() && html.trim() ? (
                <p>
                  <button
                    type="button"
                    className="button button-small"
                    onClick={() => change({ text: approximateText(html) })}
                    data-testid="email-text-from-html"
                  >
                    Start from the {draft.format === 'markdown' ? 'Markdown' : 'HTML'} version
                  </button>
                </p>
              ) : null}
            </div>
          </EditorSection>

          <EditorSection title="Test">
            <EmailTestSend send={sendTest} disabled={busy !== null} testMode={testMode} />
          </EditorSection>

          <EditorSection title="When">
            <ScheduleField
              draft={draft}
              onChange={change}
              error={errors.scheduledFor}
              id={fieldId('scheduledFor')}
              prefix="email"
              legend="When it is sent"
              label="Send on"
            />
          </EditorSection>
        </form>

        <EditorPreview caption="As a recipient sees it">
          <p className="hint" data-testid="email-sample">
            Filled in for {sample.label}
            {sample.real ? '' : ' (choose the audience to see it for one of its contacts)'}.
          </p>
          <div className="email-envelope">
            <dl className="email-headers">
              <div>
                <dt>From</dt>
                <dd className="truncate" data-testid="email-preview-from">
                  {fromLine}
                </dd>
              </div>
              {draft.replyTo.trim() ? (
                <div>
                  <dt>Reply-to</dt>
                  <dd className="truncate">{draft.replyTo.trim()}</dd>
                </div>
              ) : null}
              <div>
                <dt>Subject</dt>
                <dd className="email-preview-subject" data-testid="email-preview-subject">
                  {subjectShown || <span className="muted">(no subject)</span>}
                </dd>
              </div>
            </dl>
            {bodyTab === 'html' ? (
              <EmailFrame
                html={html}
                contact={sample.contact}
                title="Email preview"
                testId="email-preview-frame"
              />
            ) : (
              <EmailTextPreview
                html={html}
                text={draft.text}
                contact={sample.contact}
                testId="email-preview-text"
              />
            )}
          </div>
        </EditorPreview>
      </div>

      {form.confirming ? (
        <EmailLaunchDialog
          name={draft.name.trim()}
          subject={draft.subject.trim()}
          audience={check.state === 'ready' ? check.result : null}
          scheduledFor={scheduledFor}
          testMode={testMode}
          busy={busy === 'launch'}
          error={form.launchError}
          onConfirm={() => void launch()}
          onClose={() => form.setConfirming(false)}
        />
      ) : null}
    </div>
  );
}
