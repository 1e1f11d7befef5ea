import { useMemo, useRef, useState, type FormEvent, type ReactNode } from 'react';
import type { Template } from '../../../../shared/schemas/index.ts';
import { nextVariableNumber } from '../../../../shared/template-rules.ts';
import { ApiRequestError, errorMessage } from '../../api/client.ts';
import { Counter, CountedField } from '../../components/counted-field.tsx';
import { EditorPreview, EditorSection } from '../../components/editor-section.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { errorAria, FieldError } from '../../components/field-error.tsx';
import { FormButtons } from '../../components/form-buttons.tsx';
import { PlusIcon } from '../../components/icons.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { TemplateStatusBadge } from '../../components/template-status.tsx';
import { WhatsAppPreview } from '../../components/whatsapp-preview.tsx';
import { selectIsTestMode, useSession } from '../../stores/session.ts';
import { useTemplates } from '../../stores/templates.ts';
import { notify } from '../../stores/toasts.ts';
import { ButtonsEditor } from './buttons-editor.tsx';
import {
  buildComponents,
  CATEGORIES,
  draftFromTemplate,
  emptyDraft,
  fieldForParam,
  fieldId,
  LIMITS,
  validateDraft,
  variableNumbers,
  type ButtonDraft,
  type Category,
  type FieldErrors,
  type TemplateDraft,
} from './template-draft.ts';

const LANGUAGES = [
  'en',
  'en_US',
  'en_GB',
  'es',
  'es_MX',
  'pt_BR',
  'fr',
  'de',
  'it',
  'hi',
  'ar',
  'id',
];

const CATEGORY_HELP: Record<Category, string> = {
  MARKETING: 'Promotions, offers, newsletters.',
  UTILITY: 'Updates on an order, account or booking the customer asked for.',
  AUTHENTICATION: 'One-time passcodes.',
};

/** The order fields appear in, to focus the first one with an error. */
const FIELD_ORDER = ['name', 'category', 'language', 'header', 'body', 'footer', 'buttons'];
const fieldRank = (key: string): number => {
  const base = FIELD_ORDER.indexOf(key.split('.')[0]!);
  const index = Number(key.split('.')[1] ?? 0);
  return base * 100 + (Number.isFinite(index) ? index : 0);
};

function focusField(key: string): void {
  window.requestAnimationFrame(() => {
    const element = document.getElementById(fieldId(key));
    element?.scrollIntoView({ block: 'center', behavior: 'smooth' });
    if (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement) {
      element.focus({ preventScroll: true });
    }
  });
}

interface TemplateEditorProps {
  /** The template to edit, or null to create one. */
  template: Template | null;
  onDone: () => void;
}

export function TemplateEditor({ template, onDone }: TemplateEditorProps) {
  const create = useTemplates((s) => s.create);
  const edit = useTemplates((s) => s.edit);
  const businessName = useSession((s) => s.me?.businessAccount.name ?? 'Your business');
  const testMode = useSession(selectIsTestMode);
  const bodyRef = useRef<HTMLTextAreaElement>(null);

  const [draft, setDraft] = useState<TemplateDraft>(() =>
    template ? draftFromTemplate(template) : emptyDraft(),
  );
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const [serverErrors, setServerErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const loose = useMemo(() => validateDraft(draft, { required: false }), [draft]);
  const strict = useMemo(() => validateDraft(draft, { required: true }), [draft]);
  const numbers = useMemo(() => variableNumbers(draft), [draft]);
  const { components } = useMemo(() => buildComponents(draft), [draft]);
  const previewButtons = components.find((c) => c.type === 'BUTTONS')?.buttons ?? [];

  const errorFor = (key: string): string | undefined =>
    serverErrors[key] ?? (submitted || touched.has(key) ? strict[key] : loose[key]);

  const clearServer = (prefix: string) =>
    setServerErrors((errors) => {
      const next = { ...errors };
      for (const key of Object.keys(next)) {
        if (key === prefix || key.startsWith(`${prefix}.`)) delete next[key];
      }
      return next;
    });

  const change = <K extends keyof TemplateDraft>(key: K, value: TemplateDraft[K]) => {
    setDraft((d) => ({ ...d, [key]: value }));
    clearServer(key);
    setFormError(null);
  };
  const touch = (key: string) => setTouched((t) => (t.has(key) ? t : new Set(t).add(key)));

  const changeButtons = (buttons: ButtonDraft[]) => {
    setDraft((d) => ({ ...d, buttons }));
    // Indices shift when a button is removed: drop every button error the API reported.
    clearServer('buttons');
    setFormError(null);
  };

  const insertVariable = () => {
    const token = `{{${nextVariableNumber(numbers)}}}`;
    const area = bodyRef.current;
    const body = draft.body;
    const start = area?.selectionStart ?? body.length;
    const end = area?.selectionEnd ?? body.length;
    change('body', body.slice(0, start) + token + body.slice(end));
    window.requestAnimationFrame(() => {
      area?.focus();
      area?.setSelectionRange(start + token.length, start + token.length);
    });
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    setFormError(null);
    const keys = Object.keys(strict).sort((a, b) => fieldRank(a) - fieldRank(b));
    if (keys.length > 0) {
      focusField(keys[0]!);
      return;
    }
    const built = buildComponents(draft);
    setBusy(true);
    try {
      if (template) {
        await edit(template.id, {
          components: built.components,
          category: draft.category,
          language: draft.language,
        });
        notify('success', `Saved “${template.name}”: it is back in review.`);
      } else {
        await create({
          name: draft.name,
          category: draft.category,
          language: draft.language,
          components: built.components,
        });
        notify('success', `Template “${draft.name}” submitted for review.`);
      }
      onDone();
    } catch (e) {
      setBusy(false);
      const field = e instanceof ApiRequestError ? fieldForParam(e.param, built.sources) : null;
      if (field) {
        setServerErrors({ [field]: errorMessage(e) });
        focusField(field);
      } else {
        setFormError(errorMessage(e));
      }
    }
  };

  const textField = (
    key: 'name' | 'header' | 'footer',
    label: ReactNode,
    props: { placeholder: string; max: number; disabled?: boolean; hint?: string },
  ) => (
    <CountedField
      id={fieldId(key)}
      label={label}
      value={draft[key]}
      max={props.max}
      error={errorFor(key)}
      onChange={(value) => change(key, value)}
      onBlur={() => touch(key)}
      placeholder={props.placeholder}
      hint={props.hint}
      mono={key === 'name'}
      disabled={props.disabled}
      testId={`template-${key}`}
    />
  );

  const bodyError = errorFor('body');

  return (
    <div className="screen screen-wide" data-testid="template-editor">
      <PageHeader
        eyebrow={
          <button type="button" className="link-button" onClick={onDone} disabled={busy}>
            ← Templates
          </button>
        }
        title={
          <>
            {template ? 'Edit template' : 'New template'}
            {template ? <TemplateStatusBadge status={template.status} /> : null}
          </>
        }
        titleClassName="title-with-badge"
        description={
          template ? (
            <>
              Saving sends <code>{template.name}</code> for review again: it is{' '}
              <strong>pending</strong> and cannot be sent until it is approved.
            </>
          ) : testMode ? (
            'Submitted templates go to the simulated provider, which reviews them within seconds in test mode.'
          ) : (
            'Submitted templates go to the channel provider for review. Approved templates can be sent about 10 minutes after approval.'
          )
        }
        actions={
          <FormButtons
            onCancel={onDone}
            cancelDisabled={busy}
            form="template-form"
            disabled={busy}
            testId="template-submit"
          >
            {busy ? 'Submitting…' : template ? 'Save and resubmit' : 'Submit for review'}
          </FormButtons>
        }
      />

      {formError ? <ErrorBanner message={formError} testId="template-form-error" /> : null}

      <div className="editor-grid">
        <form
          id="template-form"
          className="card editor-form"
          onSubmit={submit}
          noValidate
          data-testid="template-form"
        >
          <EditorSection title="Basics">
            {textField('name', 'Name', {
              placeholder: 'order_shipped',
              max: LIMITS.name,
              disabled: template !== null,
              hint: template
                ? 'A template keeps its name; create a new one to rename it.'
                : 'Lowercase letters, digits and underscores. Sends address the template by this name.',
            })}
            <div className="form-grid-2">
              <div className="field">
                <label htmlFor={fieldId('category')}>Category</label>
                <select
                  id={fieldId('category')}
                  className="select"
                  value={draft.category}
                  onChange={(event) => change('category', event.target.value as Category)}
                  data-testid="template-category"
                >
                  {CATEGORIES.map((c) => (
                    <option key={c} value={c}>
                      {c.charAt(0) + c.slice(1).toLowerCase()}
                    </option>
                  ))}
                </select>
                <FieldError fieldId={fieldId('category')} message={errorFor('category')} />
                <p className="hint">{CATEGORY_HELP[draft.category]}</p>
              </div>
              <div className="field">
                <label htmlFor={fieldId('language')}>Language</label>
                <input
                  id={fieldId('language')}
                  className={`input${errorFor('language') ? ' invalid' : ''}`}
                  value={draft.language}
                  list="template-languages"
                  placeholder="en"
                  autoComplete="off"
                  aria-invalid={errorFor('language') ? true : undefined}
                  onChange={(event) => change('language', event.target.value.trim())}
                  onBlur={() => touch('language')}
                  data-testid="template-language"
                />
                <datalist id="template-languages">
                  {LANGUAGES.map((l) => (
                    <option key={l} value={l} />
                  ))}
                </datalist>
                <FieldError fieldId={fieldId('language')} message={errorFor('language')} />
              </div>
            </div>
          </EditorSection>

          <EditorSection title="Content">
            {textField(
              'header',
              <>
                Header <span className="optional">(optional)</span>
              </>,
              {
                placeholder: 'Your order is on its way',
                max: LIMITS.header,
                hint: 'Shown in bold above the body. At most one variable.',
              },
            )}
            <div className="field">
              <label htmlFor={fieldId('body')}>
                Body
                <Counter length={draft.body.length} max={LIMITS.body} />
              </label>
              <textarea
                id={fieldId('body')}
                ref={bodyRef}
                className={`input textarea${bodyError ? ' invalid' : ''}`}
                rows={6}
                value={draft.body}
                placeholder="Hello {{1}}, your order {{2}} has shipped."
                {...errorAria(fieldId('body'), bodyError)}
                onChange={(event) => change('body', event.target.value)}
                onBlur={() => touch('body')}
                data-testid="template-body"
              />
              <FieldError fieldId={fieldId('body')} message={bodyError} />
              <div className="field-tools">
                <button
                  type="button"
                  className="button button-small"
                  onClick={insertVariable}
                  data-testid="add-variable"
                >
                  <PlusIcon />
                  Add variable {`{{${nextVariableNumber(numbers)}}}`}
                </button>
                <span className="hint">
                  Variables are filled per send. Format with *bold*, _italic_, ~strike~.
                </span>
              </div>
            </div>
            {textField(
              'footer',
              <>
                Footer <span className="optional">(optional)</span>
              </>,
              { placeholder: 'Reply STOP to opt out', max: LIMITS.footer, hint: 'No variables.' },
            )}
          </EditorSection>

          {numbers.length > 0 ? (
            <EditorSection
              title="Sample values"
              aside={<span className="hint">For the preview only; not saved.</span>}
            >
              <div className="samples-grid">
                {numbers.map((n) => (
                  <div key={n} className="field sample-field">
                    <label htmlFor={`tpl-sample-${n}`}>
                      <code>{`{{${n}}}`}</code>
                    </label>
                    <input
                      id={`tpl-sample-${n}`}
                      className="input"
                      value={draft.samples[String(n)] ?? ''}
                      placeholder={n === 1 ? 'e.g. Ann' : 'Sample value'}
                      autoComplete="off"
                      onChange={(event) =>
                        setDraft((d) => ({
                          ...d,
                          samples: { ...d.samples, [String(n)]: event.target.value },
                        }))
                      }
                      data-testid={`template-sample-${n}`}
                    />
                  </div>
                ))}
              </div>
            </EditorSection>
          ) : null}

          <EditorSection
            title="Buttons"
            aside={
              <span className="hint">
                {draft.buttons.length}/{LIMITS.buttons}
              </span>
            }
          >
            <ButtonsEditor
              buttons={draft.buttons}
              category={draft.category}
              error={errorFor('buttons')}
              fieldError={errorFor}
              onChange={changeButtons}
              onBlur={touch}
            />
          </EditorSection>
        </form>

        <EditorPreview caption="As the customer sees it">
          <WhatsAppPreview
            header={draft.header}
            body={draft.body}
            footer={draft.footer}
            buttons={previewButtons}
            samples={draft.samples}
            businessName={businessName}
          />
        </EditorPreview>
      </div>
    </div>
  );
}
