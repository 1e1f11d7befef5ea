import { useMemo, useState, type FormEvent } from 'react';
import { cloudApiListProblem, rowCount } from '../../../../shared/list-rules.ts';
import { ApiRequestError, errorMessage } from '../../api/client.ts';
import { CountedField } from '../../components/counted-field.tsx';
import { EditorPreview, EditorSection } from '../../components/editor-section.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { focusElement, withoutErrorsAt } from '../../components/server-errors.ts';
import { plural } from '../../components/format.ts';
import { EditorSave } from '../../components/editor-save.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { ListPreview } from '../../components/list-preview.tsx';
import { useInteractiveLists, type InteractiveList } from '../../stores/interactive-lists.ts';
import { useRoute } from '../../stores/route.ts';
import { notify } from '../../stores/toasts.ts';
import {
  blockerMessage,
  contentOf,
  draftFromList,
  emptyDraft,
  fieldId,
  fieldMessage,
  isBlank,
  isFieldParam,
  LIST_LIMITS,
  problemsOf,
  type ListDraft,
  type SectionDraft,
  type TextKey,
} from './list-draft.ts';
import { ChannelFit } from './channel-fit.tsx';
import { CloudApiConfirm } from './cloud-api-confirm.tsx';
import { SectionsEditor } from './sections-editor.tsx';

const FORM_ID = 'interactive-list-form';

/** Brings a field into view and into focus (a list of rows has no input: it is only shown). */
function focusField(param: string): void {
  window.requestAnimationFrame(() => {
    focusElement(document.getElementById(fieldId(param)));
  });
}

/** Creates an interactive list (`list` null) or edits one, with its preview beside the form. */
export function ListEditor({ list }: { list: InteractiveList | null }) {
  const create = useInteractiveLists((s) => s.create);
  const update = useInteractiveLists((s) => s.update);
  const navigate = useRoute((s) => s.navigate);

  const [draft, setDraft] = useState<ListDraft>(() => (list ? draftFromList(list) : emptyDraft()));
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // A list the Cloud API would refuse is saved only once the user said so.
  const [confirming, setConfirming] = useState(false);

  const problems = useMemo(() => problemsOf(draft), [draft]);
  // Each field shows the first rule it breaks; one left blank only once the user has been there.
  const shown = useMemo(() => {
    const byParam: Record<string, string> = {};
    for (const problem of problems) {
      if (byParam[problem.param]) continue;
      if (isBlank(draft, problem.param) && !touched.has(problem.param)) continue;
      byParam[problem.param] = fieldMessage(problem.param, problem.message);
    }
    return byParam;
  }, [problems, draft, touched]);
  const errorFor = (param: string): string | undefined => serverErrors[param] ?? shown[param];

  const touch = (param: string) => setTouched((t) => (t.has(param) ? t : new Set(t).add(param)));

  const edited = (param: string) => {
    setServerErrors((errors) => withoutErrorsAt(errors, param));
    setFormError(null);
  };
  const setText = (key: TextKey, value: string) => {
    setDraft((d) => ({ ...d, [key]: value }));
    edited(key);
  };
  const editSections = (sections: SectionDraft[], param: string) => {
    setDraft((d) => ({ ...d, sections }));
    edited(param);
  };
  // Indices move when sections or rows are added, removed or moved: the core's answers about
  // them no longer point at the right field.
  const reshape = (sections: SectionDraft[]) => editSections(sections, 'sections');

  const leave = () => navigate('interactive-lists');

  const first = problems[0];
  const blocker = first
    ? `${blockerMessage(first)}${problems.length > 1 ? ` (and ${plural(problems.length - 1, 'more problem')})` : ''}`
    : null;

  const showFirstProblem = () => {
    if (!first) return;
    touch(first.param);
    focusField(first.param);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    if (first) return showFirstProblem();
    if (cloudApiListProblem(draft)) return setConfirming(true);
    void save();
  };

  const save = async () => {
    setConfirming(false);
    setBusy(true);
    setFormError(null);
    const body = contentOf(draft);
    try {
      const saved = list ? await update(list.id, body) : await create(body);
      notify('success', `Saved the list “${saved.name}”.`);
      leave();
    } catch (e) {
      setBusy(false);
      // The core checks the same rules; what it says about a field goes under that field.
      if (e instanceof ApiRequestError && e.param && isFieldParam(draft, e.param)) {
        setServerErrors({ [e.param]: fieldMessage(e.param, e.message) });
        focusField(e.param);
      } else {
        setFormError(errorMessage(e));
      }
    }
  };

  const optional = (label: string) => (
    <>
      {label} <span className="optional">(optional)</span>
    </>
  );
  const textField = (
    key: TextKey,
    label: string,
    props: { max: number; placeholder: string; hint?: string; rows?: number; optional?: boolean },
  ) => (
    <CountedField
      id={fieldId(key)}
      label={props.optional ? optional(label) : label}
      value={draft[key]}
      max={props.max}
      error={errorFor(key)}
      onChange={(value) => setText(key, value)}
      onBlur={() => touch(key)}
      placeholder={props.placeholder}
      hint={props.hint}
      rows={props.rows}
      testId={fieldId(key)}
    />
  );

  const rows = rowCount(draft);

  return (
    <div className="screen screen-wide" data-testid="list-editor">
      <PageHeader
        eyebrow={
          <button type="button" className="link-button" onClick={leave} disabled={busy}>
            ← Interactive lists
          </button>
        }
        title={list ? 'Edit interactive list' : 'New interactive list'}
        description={
          list
            ? 'Saving changes the list for the next sends; messages already sent keep the list as it was.'
            : 'A message with a button that opens a menu of choices: the customer picks one, and the pick comes back into the conversation.'
        }
        actions={
          <EditorSave
            right="lists.write"
            formId={FORM_ID}
            onCancel={leave}
            busy={busy}
            blocker={blocker}
            onShowProblem={showFirstProblem}
            pristine={!list && touched.size === 0}
            testIdPrefix="list"
          >
            {busy ? 'Saving…' : 'Save list'}
          </EditorSave>
        }
      />

      {formError ? <ErrorBanner message={formError} testId="list-form-error" /> : null}

      <div className="editor-grid">
        <form
          id={FORM_ID}
          className="card editor-form"
          onSubmit={submit}
          noValidate
          data-testid="list-form"
        >
          <EditorSection title="Name">
            {textField('name', 'Name', {
              max: LIST_LIMITS.name,
              placeholder: 'Support topics',
              hint: 'How your team finds the list in the inbox; customers never see it.',
            })}
          </EditorSection>

          <EditorSection title="Message">
            {textField('header', 'Header', {
              max: LIST_LIMITS.header,
              placeholder: 'How can we help?',
              optional: true,
              hint: 'Shown in bold above the body.',
            })}
            {textField('body', 'Body', {
              max: LIST_LIMITS.body,
              placeholder: 'Pick a topic and an agent who knows it will answer.',
              rows: 4,
            })}
            {textField('footer', 'Footer', {
              max: LIST_LIMITS.footer,
              placeholder: 'Replies within an hour',
              optional: true,
            })}
            {textField('buttonText', 'Button text', {
              max: LIST_LIMITS.buttonText,
              placeholder: 'Choose a topic',
              hint: 'The button under the message that opens the list.',
            })}
          </EditorSection>

          <EditorSection
            title="Sections and rows"
            aside={
              <span className="hint" data-testid="list-counts">
                {draft.sections.length}/{LIST_LIMITS.sections} sections · {plural(rows, 'row')}
              </span>
            }
          >
            <p className="hint">
              Each section has a title and up to {LIST_LIMITS.rowsPerSection} rows; the customer
              picks one row.
            </p>
            <ChannelFit list={draft} />
            <SectionsEditor
              draft={draft}
              errorFor={errorFor}
              touch={touch}
              onEdit={editSections}
              onReshape={reshape}
            />
          </EditorSection>
        </form>

        <EditorPreview caption="Tap the button to see the list">
          <ListPreview list={contentOf(draft)} testId="list-preview" />
        </EditorPreview>
      </div>
      {confirming ? (
        <CloudApiConfirm
          rows={rows}
          onCancel={() => setConfirming(false)}
          onConfirm={() => void save()}
        />
      ) : null}
    </div>
  );
}
