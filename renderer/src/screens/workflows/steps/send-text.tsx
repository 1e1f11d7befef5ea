import { controlProps, Field, TEMPLATE_STRING_HINT } from '../step-fields.tsx';
import type { StepEditor, StepFieldsProps } from './step-editor.ts';

export const sendText: StepEditor<'send_text'> = {
  type: 'send_text',
  hint: 'Free text: only inside the 24-hour window (after the customer wrote).',
  idPrefix: 'text',
  defaults: { text: '' },
  Fields: SendTextFields,
};

function SendTextFields({ step, field, set }: StepFieldsProps) {
  const text = field('text');
  return (
    <Field {...text} label="Message" hint={TEMPLATE_STRING_HINT}>
      <textarea
        className={`input textarea${text.error ? ' invalid' : ''}`}
        rows={3}
        value={step.text ?? ''}
        placeholder="Hi {{contact.name}}, your order {{payload.orderId}} is on its way."
        onChange={(e) => set('text', { text: e.target.value })}
        {...controlProps(text.id, text.error)}
      />
    </Field>
  );
}
