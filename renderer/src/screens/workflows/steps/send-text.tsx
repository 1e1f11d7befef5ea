import { controlProps, Field, TEMPLATE_STRING_HINT } from '../step-fields.tsx';
import type { StepEditor, StepFieldsProps } from './step-editor.ts';

function SendTextFields({ step, at, id, err, set }: StepFieldsProps) {
  return (
    <Field id={id('text')} label="Message" error={err(`${at}.text`)} hint={TEMPLATE_STRING_HINT}>
      <textarea
        className={`input textarea${err(`${at}.text`) ? ' invalid' : ''}`}
        rows={3}
        value={step.text ?? ''}
        placeholder="Hi {{contact.name}}, your order {{payload.orderId}} is on its way."
        onChange={(e) => set('text', { text: e.target.value })}
        {...controlProps(id('text'), err(`${at}.text`))}
      />
    </Field>
  );
}

export const sendText: StepEditor<'send_text'> = {
  type: 'send_text',
  hint: 'Free text: only inside the 24-hour window (after the customer wrote).',
  idPrefix: 'text',
  defaults: { text: '' },
  Fields: SendTextFields,
};
