import { useId, useState, type FormEvent } from 'react';
import { LABEL_SEPARATOR_HINT, labelsProblem, splitLabels } from '../../../../shared/labels.ts';
import type { Contact } from '../../../../shared/schemas/index.ts';
import { api, ApiRequestError, errorMessage } from '../../api/client.ts';
import { FormDialog } from '../../components/form-dialog.tsx';
import { useContacts } from '../../stores/contacts.ts';
import { notify } from '../../stores/toasts.ts';
import { EmailSubscription } from '../email/email-subscription.tsx';

const FIELDS = ['phone', 'name', 'email', 'labels'] as const;
type Field = (typeof FIELDS)[number];
type FieldErrors = Partial<Record<Field, string>>;

const isField = (value: string): value is Field => (FIELDS as readonly string[]).includes(value);

interface ContactFormDialogProps {
  /** The contact to edit, or null to add one. */
  contact: Contact | null;
  onClose: () => void;
}

export function ContactFormDialog({ contact, onClose }: ContactFormDialogProps) {
  const upsert = useContacts((s) => s.upsert);
  const reload = useContacts((s) => s.load);
  const formId = useId();
  const [values, setValues] = useState<Record<Field, string>>({
    phone: contact?.phone ?? '',
    name: contact?.name ?? '',
    email: contact?.email ?? '',
    labels: contact?.labels.join(', ') ?? '',
  });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const change = (field: Field, value: string) => {
    setValues((v) => ({ ...v, [field]: value }));
    if (errors[field]) setErrors((e) => ({ ...e, [field]: undefined }));
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setErrors({});
    setFormError(null);
    if (!values.phone.trim()) {
      setErrors({ phone: 'Enter a phone number in international format, e.g. +4915112345678.' });
      return;
    }
    const name = values.name.trim();
    const email = values.email.trim();
    const labels = splitLabels(values.labels);
    const labelError = labelsProblem(labels);
    if (labelError) {
      setErrors({ labels: `${labelError.charAt(0).toUpperCase()}${labelError.slice(1)}.` });
      return;
    }
    setBusy(true);
    try {
      if (contact) {
        await api.contacts.patch(contact.id, {
          phone: values.phone.trim(),
          name: name || null,
          email: email || null,
          labels,
        });
        void reload();
        notify('success', 'Contact saved.');
      } else {
        const { created } = await upsert({
          phone: values.phone.trim(),
          ...(name ? { name } : {}),
          ...(email ? { email } : {}),
          ...(labels.length > 0 ? { labels } : {}),
        });
        notify(
          'success',
          created ? 'Contact added.' : 'A contact with this phone existed: updated it.',
        );
      }
      onClose();
    } catch (e) {
      const field = e instanceof ApiRequestError ? e.param?.split('.')[0] : undefined;
      if (field && isField(field)) setErrors({ [field]: errorMessage(e) });
      else setFormError(errorMessage(e));
      setBusy(false);
    }
  };

  const input = (field: Field, label: string, props: { placeholder?: string; type?: string }) => (
    <div className="field">
      <label htmlFor={`${formId}-${field}`}>{label}</label>
      <input
        id={`${formId}-${field}`}
        className={`input${errors[field] ? ' invalid' : ''}`}
        value={values[field]}
        autoComplete="off"
        aria-invalid={errors[field] ? true : undefined}
        aria-describedby={errors[field] ? `${formId}-${field}-error` : undefined}
        onChange={(event) => change(field, event.target.value)}
        data-testid={`contact-${field}`}
        {...props}
      />
      {errors[field] ? (
        <p
          id={`${formId}-${field}-error`}
          className="field-error"
          data-testid={`contact-${field}-error`}
        >
          {errors[field]}
        </p>
      ) : null}
    </div>
  );

  return (
    <FormDialog
      title={contact ? 'Edit contact' : 'Add contact'}
      onClose={onClose}
      onSubmit={submit}
      submitLabel={busy ? 'Saving…' : contact ? 'Save' : 'Add contact'}
      submitTestId="contact-submit"
      busy={busy}
      error={formError}
      testId="contact-dialog"
      formId={formId}
    >
      {input('phone', 'Phone', { placeholder: '+4915112345678', type: 'tel' })}
      {input('name', 'Name', { placeholder: 'Ada Lovelace' })}
      {input('email', 'Email', { placeholder: 'ada@example.com', type: 'email' })}
      {contact?.email ? (
        <p className="hint" data-testid="contact-email-state">
          <EmailSubscription contact={contact} />
        </p>
      ) : null}
      {input('labels', 'Labels', { placeholder: 'vip, newsletter' })}
      <p className="hint">{LABEL_SEPARATOR_HINT}</p>
    </FormDialog>
  );
}
