import { Counter } from '../../components/counted-field.tsx';
import { CloseIcon, PlusIcon } from '../../components/icons.tsx';
import {
  BUTTON_LABELS,
  BUTTON_LIMITS,
  buttonCounts,
  fieldId,
  LIMITS,
  newButton,
  type ButtonDraft,
  type ButtonType,
  type Category,
} from './template-draft.ts';

const TYPES: ButtonType[] = ['QUICK_REPLY', 'URL', 'PHONE_NUMBER', 'COPY_CODE'];

interface ButtonsEditorProps {
  buttons: ButtonDraft[];
  category: Category;
  error: string | undefined;
  fieldError: (key: string) => string | undefined;
  onChange: (buttons: ButtonDraft[]) => void;
  onBlur: (key: string) => void;
}

function whyDisabled(
  type: ButtonType,
  buttons: ButtonDraft[],
  category: Category,
): string | undefined {
  if (buttons.length >= LIMITS.buttons) return `At most ${LIMITS.buttons} buttons in total.`;
  if (buttonCounts(buttons)[type] >= BUTTON_LIMITS[type]) {
    return `At most ${BUTTON_LIMITS[type]} of this kind.`;
  }
  if (type === 'COPY_CODE' && category !== 'MARKETING') {
    return 'Copy-code buttons are for MARKETING templates only.';
  }
  return undefined;
}

export function ButtonsEditor({
  buttons,
  category,
  error,
  fieldError,
  onChange,
  onBlur,
}: ButtonsEditorProps) {
  const update = (index: number, patch: Partial<ButtonDraft>) =>
    onChange(buttons.map((b, i) => (i === index ? { ...b, ...patch } : b)));

  const input = (
    index: number,
    key: 'text' | 'url' | 'phoneNumber' | 'example',
    label: string,
    props: { placeholder: string; type?: string; maxLength?: number },
  ) => {
    const field = `buttons.${index}.${key}`;
    const message = fieldError(field);
    const button = buttons[index]!;
    return (
      <div className="field">
        <label htmlFor={fieldId(field)}>
          {label}
          {key === 'text' ? <Counter length={button.text.length} max={LIMITS.buttonText} /> : null}
        </label>
        <input
          id={fieldId(field)}
          className={`input${message ? ' invalid' : ''}`}
          value={button[key]}
          autoComplete="off"
          aria-invalid={message ? true : undefined}
          aria-describedby={message ? `${fieldId(field)}-error` : undefined}
          onChange={(event) => update(index, { [key]: event.target.value })}
          onBlur={() => onBlur(field)}
          data-testid={`button-${index}-${key}`}
          {...props}
        />
        {message ? (
          <p id={`${fieldId(field)}-error`} className="field-error" data-testid="field-error">
            {message}
          </p>
        ) : null}
      </div>
    );
  };

  return (
    <div className="buttons-editor" id={fieldId('buttons')}>
      {buttons.length === 0 ? (
        <p className="hint">
          Optional. Quick replies let the customer answer with one tap; call-to-action buttons open
          a website, call a number or copy a code.
        </p>
      ) : (
        <ol className="button-drafts">
          {buttons.map((button, index) => (
            <li key={button.key} className="button-draft" data-testid="button-draft">
              <div className="button-draft-head">
                <span className="badge">{BUTTON_LABELS[button.type]}</span>
                <button
                  type="button"
                  className="icon-button"
                  aria-label={`Remove button ${index + 1}`}
                  onClick={() => onChange(buttons.filter((_, i) => i !== index))}
                >
                  <CloseIcon />
                </button>
              </div>
              <div className="button-draft-fields">
                {input(index, 'text', 'Button text', {
                  placeholder: button.type === 'QUICK_REPLY' ? 'e.g. Track order' : 'e.g. Visit us',
                })}
                {button.type === 'URL'
                  ? input(index, 'url', 'Website URL', {
                      placeholder: 'https://example.com/orders',
                      type: 'url',
                    })
                  : null}
                {button.type === 'PHONE_NUMBER'
                  ? input(index, 'phoneNumber', 'Phone number', {
                      placeholder: '+14155552671',
                      type: 'tel',
                    })
                  : null}
                {button.type === 'COPY_CODE'
                  ? input(index, 'example', 'Offer code (example)', {
                      placeholder: 'SAVE20',
                      maxLength: 15,
                    })
                  : null}
              </div>
            </li>
          ))}
        </ol>
      )}
      <div className="add-buttons" role="group" aria-label="Add a button">
        {TYPES.map((type) => {
          const reason = whyDisabled(type, buttons, category);
          return (
            <button
              key={type}
              type="button"
              className="button button-small"
              disabled={reason !== undefined}
              title={reason ?? `Add a “${BUTTON_LABELS[type]}” button`}
              onClick={() => onChange([...buttons, newButton(type)])}
              data-testid={`add-button-${type}`}
            >
              <PlusIcon />
              {BUTTON_LABELS[type]}
            </button>
          );
        })}
      </div>
      {error ? (
        <p className="field-error" data-testid="buttons-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
