import { useEffect, useId, useState } from 'react';
import { PLACEHOLDER_HELP } from '../../../../shared/placeholders.ts';
import type { Template } from '../../../../shared/schemas/index.ts';
import { ApiRequestError, errorMessage } from '../../api/client.ts';
import { EditorPreview, EditorSection } from '../../components/editor-section.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { errorAria, FieldError } from '../../components/field-error.tsx';
import { componentText } from '../../components/template-text.ts';
import { PageHeader } from '../../components/page-header.tsx';
import { WhatsAppPreview } from '../../components/whatsapp-preview.tsx';
import { useApprovedTemplates } from '../../stores/approved-templates.ts';
import { campaignsApi, type Campaign } from '../../stores/campaigns-api.ts';
import { useCampaigns } from '../../stores/campaigns.ts';
import { hrefFor, useRoute } from '../../stores/route.ts';
import { selectIsTestMode, useSession } from '../../stores/session.ts';
import { notify } from '../../stores/toasts.ts';
import { AudienceField } from './audience-field.tsx';
import {
  checkDraft,
  contactFieldsUsed,
  createBody,
  draftFromCampaign,
  emptyDraft,
  fieldForParam,
  fieldId,
  firstField,
  NAME_MAX,
  targetOf,
  updateBody,
  variableNumbers,
  variablesOf,
  type CampaignDraft,
  type FieldErrors,
} from './campaign-draft.ts';
import { formatDateTime, fromLocalInput, toLocalInput } from '../../components/format.ts';
import { timeZone } from './campaign-format.ts';
import { LaunchDialog } from './launch-dialog.tsx';
import { useAudience } from './use-audience.ts';
import { useGroups } from './use-groups.ts';

const CONTACT_FIELDS = [
  '{{contact.name}}',
  '{{contact.phone}}',
  '{{contact.email}}',
  '{{contact.attributes.KEY}}',
];

function focusField(field: string): void {
  window.requestAnimationFrame(() => {
    const element = document.getElementById(fieldId(field));
    element?.scrollIntoView({ block: 'center', behavior: 'smooth' });
    element?.focus({ preventScroll: true });
  });
}

/** The words around {{n}} in the template, so each input says what it fills. */
function variableContext(template: Template | null, n: string): string | null {
  if (!template) return null;
  const token = `{{${n}}}`;
  for (const type of ['HEADER', 'BODY'] as const) {
    const text = componentText(template, type);
    const at = text.indexOf(token);
    if (at < 0) continue;
    const before = text.slice(Math.max(0, at - 28), at);
    const after = text.slice(at + token.length, at + token.length + 28);
    return `${at > 28 ? '…' : ''}${before}${token}${after}${at + token.length + 28 < text.length ? '…' : ''}`;
  }
  return null;
}

interface CampaignWizardProps {
  /** The draft to edit, or null for a new campaign. */
  campaign: Campaign | null;
  /** A new campaign was saved as a draft for the first time. */
  onCreated?: (campaign: Campaign) => void;
}

/**
 * Creates or edits a draft campaign: its name, template and variables, its audience (counted
 * live), when it starts; saves it as a draft or launches it. The preview renders the message for
 * a sample recipient as the core would.
 */
export function CampaignWizard({ campaign, onCreated }: CampaignWizardProps) {
  const approved = useApprovedTemplates((s) => s.approved);
  const templatesStatus = useApprovedTemplates((s) => s.status);
  const ensureTemplates = useApprovedTemplates((s) => s.ensureLoaded);
  const testMode = useSession(selectIsTestMode);
  const businessName = useSession((s) => s.me?.businessAccount.name ?? 'Your business');
  const navigate = useRoute((s) => s.navigate);
  const applyToList = useCampaigns((s) => s.apply);
  const groups = useGroups();
  const formId = useId();

  const [draft, setDraft] = useState<CampaignDraft>(() =>
    campaign ? draftFromCampaign(campaign) : emptyDraft(),
  );
  /** The saved draft's id, once it has one. */
  const [savedId, setSavedId] = useState<string | null>(campaign?.id ?? null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState<'save' | 'launch' | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [launchError, setLaunchError] = useState<string | null>(null);

  useEffect(() => ensureTemplates(), [ensureTemplates]);

  const template = approved.find((t) => t.name === draft.templateName) ?? null;
  const variableCount = template?.variableCount ?? Object.keys(draft.variables).length;
  const numbers = variableNumbers(template?.variableCount ?? 0);
  const variables = variablesOf(draft, variableCount);
  const fieldsUsed = contactFieldsUsed(variables);
  const target = targetOf(draft);
  const check = useAudience(
    target ? { target, ...(template ? { templateName: template.name, variables } : {}) } : null,
  );
  const audienceError =
    check.state === 'error' &&
    (!check.error?.param || fieldForParam(check.error.param) === 'target')
      ? check.error?.message
      : undefined;

  const change = (patch: Partial<CampaignDraft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    setErrors((current) => {
      const next = { ...current };
      for (const key of Object.keys(patch)) {
        const field =
          key === 'groupId' || key === 'labels' || key === 'audience'
            ? 'target'
            : key === 'scheduledAt' || key === 'when'
              ? 'scheduledFor'
              : key;
        delete next[field];
      }
      return next;
    });
    setFormError(null);
  };

  const changeVariable = (n: string, value: string) => {
    setDraft((d) => ({ ...d, variables: { ...d.variables, [n]: value } }));
    setErrors((current) => {
      const next = { ...current };
      delete next[`variables.${n}`];
      delete next.variables;
      return next;
    });
    setFormError(null);
  };

  const validate = (launching: boolean): boolean => {
    const found = checkDraft(draft, {
      launching,
      variableCount: template ? template.variableCount : null,
    });
    setErrors(found);
    const first = firstField(found);
    if (first) focusField(first);
    return first === null;
  };

  /** Puts an answer's error under its field, or above the form. */
  const showError = (e: unknown): void => {
    const field = e instanceof ApiRequestError ? fieldForParam(e.param) : null;
    if (field) {
      setErrors((current) => ({ ...current, [field]: errorMessage(e) }));
      focusField(field === 'variables' ? 'variables.1' : field);
    } else {
      setFormError(errorMessage(e));
    }
  };

  /** Creates the draft, or saves its changes; the address then names it. */
  const persist = async (): Promise<Campaign> => {
    const saved = savedId
      ? await campaignsApi.update(updateBody(savedId, draft, variableCount))
      : await campaignsApi.create(createBody(draft, variableCount));
    applyToList(saved);
    if (!savedId) {
      setSavedId(saved.id);
      onCreated?.(saved);
    }
    return saved;
  };

  const saveDraft = async () => {
    if (busy || !validate(false)) return;
    setBusy('save');
    setFormError(null);
    try {
      const saved = await persist();
      notify('success', `Saved the draft “${saved.name}”.`);
    } catch (e) {
      showError(e);
    } finally {
      setBusy(null);
    }
  };

  const askLaunch = () => {
    if (busy || !validate(true)) return;
    setLaunchError(null);
    setConfirming(true);
  };

  const scheduledFor = draft.when === 'later' ? fromLocalInput(draft.scheduledAt) : null;

  const launch = async () => {
    setBusy('launch');
    setLaunchError(null);
    try {
      const saved = await persist();
      const launched = await campaignsApi.launch(saved.id, scheduledFor ?? undefined);
      applyToList(launched);
      notify(
        'success',
        launched.status === 'scheduled'
          ? `“${launched.name}” is scheduled for ${formatDateTime(launched.scheduledFor)}.`
          : `“${launched.name}” is sending.`,
      );
      setConfirming(false);
      navigate('campaigns', launched.id);
    } catch (e) {
      setBusy(null);
      const field = e instanceof ApiRequestError ? fieldForParam(e.param) : null;
      if (field) {
        setConfirming(false);
        showError(e);
      } else {
        setLaunchError(errorMessage(e));
      }
    }
  };

  const sample = check.result?.sample ?? null;
  const previewSamples = sample && template ? sample.variables : variables;

  const buttons = template?.components.find((c) => c.type === 'BUTTONS')?.buttons ?? [];
  const missingTemplate = draft.templateName !== '' && !template && templatesStatus === 'ready';

  return (
    <div className="screen screen-wide" data-testid="campaign-wizard">
      <PageHeader
        eyebrow={
          <a href={hrefFor('campaigns')} className="link-button">
            ← Campaigns
          </a>
        }
        title={savedId ? 'Edit draft campaign' : 'New campaign'}
        description="Choose the template, who receives it and when. Save it as a draft to finish later, or launch it."
        actions={
          <>
            <button
              type="button"
              className="button"
              onClick={() => navigate('campaigns')}
              disabled={busy !== null}
            >
              Cancel
            </button>
            <button
              type="button"
              className="button"
              onClick={() => void saveDraft()}
              disabled={busy !== null}
              data-testid="campaign-save"
            >
              {busy === 'save' ? 'Saving…' : 'Save draft'}
            </button>
            <button
              type="submit"
              form={formId}
              className="button button-primary"
              disabled={busy !== null}
              data-testid="campaign-launch"
            >
              {draft.when === 'later' ? 'Schedule…' : 'Launch…'}
            </button>
          </>
        }
      />

      {formError ? <ErrorBanner message={formError} testId="campaign-form-error" /> : null}

      <div className="editor-grid">
        <form
          id={formId}
          className="card editor-form"
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            askLaunch();
          }}
          data-testid="campaign-form"
        >
          <EditorSection title="Campaign">
            <div className="field">
              <label htmlFor={fieldId('name')}>Name</label>
              <input
                id={fieldId('name')}
                className={`input${errors.name ? ' invalid' : ''}`}
                value={draft.name}
                maxLength={NAME_MAX}
                placeholder="Spring sale"
                autoComplete="off"
                {...errorAria(fieldId('name'), errors.name)}
                onChange={(event) => change({ name: event.target.value })}
                data-testid="campaign-name"
              />
              <FieldError fieldId={fieldId('name')} message={errors.name} />
            </div>
          </EditorSection>

          <EditorSection title="Message">
            <div className="field">
              <label htmlFor={fieldId('templateName')}>Template</label>
              <select
                id={fieldId('templateName')}
                className={`select${errors.templateName ? ' invalid' : ''}`}
                value={draft.templateName}
                {...errorAria(fieldId('templateName'), errors.templateName)}
                onChange={(event) => change({ templateName: event.target.value })}
                data-testid="campaign-template"
              >
                <option value="">
                  {templatesStatus === 'loading' || templatesStatus === 'idle'
                    ? 'Loading templates…'
                    : 'Choose an approved template…'}
                </option>
                {missingTemplate ? (
                  <option value={draft.templateName}>{draft.templateName} (not approved)</option>
                ) : null}
                {approved.map((t) => (
                  <option key={t.id} value={t.name}>
                    {t.name} · {t.language}
                  </option>
                ))}
              </select>
              <FieldError fieldId={fieldId('templateName')} message={errors.templateName} />
              {templatesStatus === 'ready' && approved.length === 0 ? (
                <p className="hint">
                  No approved templates yet. <a href={hrefFor('templates')}>Create one</a>; once it
                  is approved it can be sent here.
                </p>
              ) : missingTemplate ? (
                <p className="hint">
                  <code>{draft.templateName}</code> is not approved now (paused, disabled or in
                  review again): choose another to launch.
                </p>
              ) : template ? (
                <p className="hint">
                  {template.category.charAt(0) + template.category.slice(1).toLowerCase()} template
                  ·{' '}
                  {template.variableCount === 0
                    ? 'no variables'
                    : `${template.variableCount} variables`}
                </p>
              ) : null}
            </div>

            {numbers.length > 0 ? (
              <fieldset className="campaign-variables" data-testid="campaign-variables">
                <legend>Variables</legend>
                <p className="hint" id={`${formId}-vars-hint`}>
                  Text, and contact fields filled in per recipient: <code>{PLACEHOLDER_HELP}</code>.
                </p>
                <datalist id={`${formId}-fields`}>
                  {CONTACT_FIELDS.map((f) => (
                    <option key={f} value={f} />
                  ))}
                </datalist>
                {errors.variables ? (
                  <p className="field-error" data-testid="campaign-variables-error">
                    {errors.variables}
                  </p>
                ) : null}
                {numbers.map((n) => {
                  const key = `variables.${n}`;
                  const message = errors[key];
                  const context = variableContext(template, n);
                  return (
                    <div key={n} className="field">
                      <label htmlFor={fieldId(key)}>
                        <code>{`{{${n}}}`}</code>
                        {context ? <span className="campaign-var-context">{context}</span> : null}
                      </label>
                      <input
                        id={fieldId(key)}
                        className={`input${message ? ' invalid' : ''}`}
                        value={draft.variables[n] ?? ''}
                        list={`${formId}-fields`}
                        placeholder={n === '1' ? '{{contact.name}}' : 'Text or {{contact.…}}'}
                        autoComplete="off"
                        spellCheck={false}
                        {...errorAria(fieldId(key), message, `${formId}-vars-hint`)}
                        onChange={(event) => changeVariable(n, event.target.value)}
                        data-testid={`campaign-var-${n}`}
                      />
                      <FieldError fieldId={fieldId(key)} message={message} />
                    </div>
                  );
                })}
              </fieldset>
            ) : null}
          </EditorSection>

          <EditorSection title="Audience">
            <AudienceField
              draft={draft}
              onChange={change}
              groups={groups}
              check={check}
              error={errors.target ?? audienceError}
              fieldsUsed={fieldsUsed}
            />
          </EditorSection>

          <EditorSection title="Schedule">
            <fieldset className="radio-list">
              <legend className="visually-hidden">When it starts</legend>
              <label className={`radio-card${draft.when === 'now' ? ' selected' : ''}`}>
                <input
                  type="radio"
                  name="campaign-when"
                  checked={draft.when === 'now'}
                  onChange={() => change({ when: 'now' })}
                  data-testid="campaign-when-now"
                />
                <span>
                  <span className="radio-title">When I launch it</span>
                  <span className="hint">Sending starts at once.</span>
                </span>
              </label>
              <label className={`radio-card${draft.when === 'later' ? ' selected' : ''}`}>
                <input
                  type="radio"
                  name="campaign-when"
                  checked={draft.when === 'later'}
                  onChange={() =>
                    change({
                      when: 'later',
                      scheduledAt:
                        draft.scheduledAt || toLocalInput(new Date(Date.now() + 3_600_000)),
                    })
                  }
                  data-testid="campaign-when-later"
                />
                <span>
                  <span className="radio-title">Later</span>
                  <span className="hint">It waits as scheduled until then.</span>
                </span>
              </label>
            </fieldset>
            {draft.when === 'later' ? (
              <div className="field campaign-schedule">
                <label htmlFor={fieldId('scheduledFor')}>Start on</label>
                <input
                  id={fieldId('scheduledFor')}
                  type="datetime-local"
                  className={`input${errors.scheduledFor ? ' invalid' : ''}`}
                  value={draft.scheduledAt}
                  min={toLocalInput(new Date())}
                  {...errorAria(
                    fieldId('scheduledFor'),
                    errors.scheduledFor,
                    `${fieldId('scheduledFor')}-zone`,
                  )}
                  onChange={(event) => change({ scheduledAt: event.target.value })}
                  data-testid="campaign-scheduled-at"
                />
                <p className="hint" id={`${fieldId('scheduledFor')}-zone`}>
                  In your time zone, <strong data-testid="campaign-time-zone">{timeZone()}</strong>.
                </p>
                <FieldError fieldId={fieldId('scheduledFor')} message={errors.scheduledFor} />
              </div>
            ) : null}
          </EditorSection>
        </form>

        <EditorPreview caption="As a recipient sees it">
          <p className="hint" data-testid="campaign-sample">
            {!template
              ? 'Choose a template to see the message.'
              : sample
                ? `For ${sample.name ?? sample.phone}${sample.name ? ` (${sample.phone})` : ''}, one of the recipients.`
                : 'Choose the audience to see the message for one of its recipients.'}
          </p>
          {template ? (
            <WhatsAppPreview
              header={componentText(template, 'HEADER')}
              body={componentText(template, 'BODY')}
              footer={componentText(template, 'FOOTER')}
              buttons={buttons}
              samples={previewSamples}
              businessName={businessName}
              testId="campaign-preview"
            />
          ) : null}
        </EditorPreview>
      </div>

      {confirming ? (
        <LaunchDialog
          name={draft.name.trim()}
          templateName={draft.templateName}
          total={check.state === 'ready' ? (check.result?.total ?? null) : null}
          missing={check.state === 'ready' ? (check.result?.missingVariables ?? 0) : 0}
          scheduledFor={scheduledFor}
          testMode={testMode}
          busy={busy === 'launch'}
          error={launchError}
          onConfirm={() => void launch()}
          onClose={() => setConfirming(false)}
        />
      ) : null}
    </div>
  );
}
