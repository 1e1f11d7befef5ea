import { useEffect, useId, useState } from 'react';
import { PLACEHOLDER_HELP } from '../../../../shared/placeholders.ts';
import type { Template } from '../../../../shared/schemas/index.ts';
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
import { fromLocalInput } from '../../components/format.ts';
import { AudienceCount, AudienceField } from './audience-field.tsx';
import {
  checkDraft,
  createBody,
  draftFromCampaign,
  emptyDraft,
  fieldForParam,
  fieldId,
  fieldOfKey,
  firstField,
  NAME_MAX,
  targetOf,
  updateBody,
  variableNumbers,
  variablesOf,
  type CampaignDraft,
} from './campaign-draft.ts';
import { EditorActions, ScheduleField } from './editor-parts.tsx';
import { LaunchDialog } from './launch-dialog.tsx';
import { useAudience } from './use-audience.ts';
import { useCampaignForm } from './use-campaign-form.ts';
import { useGroups } from './use-groups.ts';

const CONTACT_FIELDS = [
  '{{contact.name}}',
  '{{contact.firstName}}',
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

  /** The saved draft's id, once it has one. */
  const [savedId, setSavedId] = useState<string | null>(campaign?.id ?? null);
  const templateOf = (d: CampaignDraft) => approved.find((t) => t.name === d.templateName) ?? null;
  const form = useCampaignForm({
    initial: (): CampaignDraft => (campaign ? draftFromCampaign(campaign) : emptyDraft()),
    route: 'campaigns',
    fieldOfKey: (key) => fieldOfKey(key, 'target'),
    check: (d, launching) =>
      checkDraft(d, { launching, variableCount: templateOf(d)?.variableCount ?? null }),
    firstField,
    fieldForParam,
    show: (field) => focusField(field === 'variables' ? 'variables.1' : field),
  });
  const { draft, setDraft, change, errors, setErrors, setFormError, busy } = form;

  useEffect(() => ensureTemplates(), [ensureTemplates]);

  const template = templateOf(draft);
  const variableCount = template?.variableCount ?? Object.keys(draft.variables).length;
  const numbers = variableNumbers(template?.variableCount ?? 0);
  const variables = variablesOf(draft, variableCount);
  const target = targetOf(draft);
  const check = useAudience(
    target ? { target, ...(template ? { templateName: template.name, variables } : {}) } : null,
  );
  const audienceError =
    check.state === 'error' &&
    (!check.error?.param || fieldForParam(check.error.param) === 'target')
      ? check.error?.message
      : undefined;

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

  const scheduledFor = draft.when === 'later' ? fromLocalInput(draft.scheduledAt) : null;

  const launch = () =>
    form.launch(async () => {
      const saved = await persist();
      const launched = await campaignsApi.launch(saved.id, scheduledFor ?? undefined);
      applyToList(launched);
      return launched;
    });

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
          <EditorActions
            testIdPrefix="campaign"
            busy={busy}
            onCancel={() => navigate('campaigns')}
            onSave={() => void form.save(persist, (saved) => `Saved the draft “${saved.name}”.`)}
            saveLabel="Save draft"
            formId={formId}
            later={draft.when === 'later'}
          />
        }
      />

      {form.formError ? (
        <ErrorBanner message={form.formError} testId="campaign-form-error" />
      ) : null}

      <div className="editor-grid">
        <form
          id={formId}
          className="card editor-form"
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            form.askLaunch();
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
                        className={`input campaign-var-input${message ? ' invalid' : ''}`}
                        value={draft.variables[n] ?? ''}
                        list={`${formId}-fields`}
                        // Worded as a hint ("e.g. …", in italics) so an empty field never
                        // reads as one already filled in.
                        placeholder={
                          n === '1'
                            ? 'e.g. {{contact.firstName}}'
                            : 'e.g. some text, or {{contact.…}}'
                        }
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
              error={errors.target ?? audienceError}
              count={<AudienceCount check={check} />}
            />
          </EditorSection>

          <EditorSection title="Schedule">
            <ScheduleField
              draft={draft}
              onChange={change}
              error={errors.scheduledFor}
              id={fieldId('scheduledFor')}
              prefix="campaign"
              legend="When it starts"
              label="Start on"
            />
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

      {form.confirming ? (
        <LaunchDialog
          name={draft.name.trim()}
          templateName={draft.templateName}
          total={check.state === 'ready' ? (check.result?.total ?? null) : null}
          missing={check.state === 'ready' ? (check.result?.missingVariables ?? 0) : 0}
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
