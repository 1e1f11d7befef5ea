import { useEffect } from 'react';
import { useInteractiveLists } from '../../../stores/interactive-lists.ts';
import { controlProps, Field } from '../step-fields.tsx';
import type { StepEditor, StepFieldsProps } from './step-editor.ts';

export const sendList: StepEditor<'send_list'> = {
  type: 'send_list',
  hint: 'A saved interactive list: only inside the 24-hour window.',
  idPrefix: 'list',
  defaults: { listId: '' },
  Fields: SendListFields,
};

function SendListFields({ step, field, set }: StepFieldsProps) {
  const library = useInteractiveLists((s) => s.library);
  const status = useInteractiveLists((s) => s.libraryStatus);
  const ensureLibrary = useInteractiveLists((s) => s.ensureLibrary);
  useEffect(() => ensureLibrary(), [ensureLibrary]);
  const { id, error } = field('listId');
  const known = !step.listId || library.some((l) => l.id === step.listId);
  return (
    <Field id={id} label="Interactive list" error={error}>
      <select
        className={`select${error ? ' invalid' : ''}`}
        value={step.listId ?? ''}
        onChange={(e) => set('listId', { listId: e.target.value })}
        {...controlProps(id, error)}
      >
        <option value="">
          {status === 'ready' || status === 'error' ? 'Choose a saved list…' : 'Loading lists…'}
        </option>
        {library.map((list) => (
          <option key={list.id} value={list.id}>
            {list.name}
          </option>
        ))}
        {known || status !== 'ready' ? null : (
          <option value={step.listId}>A deleted list ({step.listId})</option>
        )}
      </select>
    </Field>
  );
}
