import { useId, useState, type FormEvent } from 'react';
import type { Template } from '../../../../shared/schemas/index.ts';
import { ApiRequestError, errorMessage, type ReviewDecision } from '../../api/client.ts';
import { FormDialog } from '../../components/form-dialog.tsx';
import { RadioCards, type RadioChoice } from '../../components/radio-cards.tsx';
import { TemplateStatusBadge } from '../../components/template-status.tsx';
import { useTemplates } from '../../stores/templates.ts';
import { notify } from '../../stores/toasts.ts';

const DECISIONS: RadioChoice<ReviewDecision>[] = [
  { value: 'approve', label: 'Approve', help: 'The template becomes sendable.' },
  { value: 'reject', label: 'Reject', help: 'The reason is shown with the template.' },
  { value: 'pause', label: 'Pause', help: 'As the provider does after poor feedback.' },
  { value: 'disable', label: 'Disable', help: 'Permanently; it can no longer be sent or edited.' },
];

const suggested = (template: Template): ReviewDecision =>
  template.status === 'APPROVED' ? 'pause' : 'approve';

/** Test mode only: plays the channel provider's part (POST /api/simulator/templates/:id/review). */
export function ReviewDialog({ template, onClose }: { template: Template; onClose: () => void }) {
  const review = useTemplates((s) => s.review);
  const formId = useId();
  const [decision, setDecision] = useState<ReviewDecision>(suggested(template));
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [reasonError, setReasonError] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    setReasonError(null);
    if (decision === 'reject' && !reason.trim()) {
      setReasonError('Say why, as a reviewer would: it is shown with the template.');
      return;
    }
    setBusy(true);
    try {
      await review(template.id, decision, reason.trim() || undefined);
      notify('success', `Simulated review sent for “${template.name}”.`);
      onClose();
    } catch (e) {
      if (e instanceof ApiRequestError && e.param === 'reason') setReasonError(e.message);
      else setError(errorMessage(e));
      setBusy(false);
    }
  };

  return (
    <FormDialog
      title="Simulate a review"
      onClose={onClose}
      onSubmit={submit}
      submitLabel={busy ? 'Sending…' : 'Apply decision'}
      submitTestId="confirm-review"
      busy={busy}
      error={error}
      size="small"
      testId="review-dialog"
      formId={formId}
      lead={
        <>
          <p className="dialog-lead">
            <code>{template.name}</code> <TemplateStatusBadge status={template.status} />
          </p>
          <p className="hint">
            Test mode: this plays the channel provider&apos;s review, so you can try every status.
          </p>
        </>
      }
    >
      <RadioCards
        name="decision"
        legend="Decision"
        legendHidden
        choices={DECISIONS}
        value={decision}
        onChange={setDecision}
        testId={(value) => `review-${value}`}
      />
      {decision === 'reject' ? (
        <div className="field">
          <label htmlFor={`${formId}-reason`}>Rejection reason</label>
          <input
            id={`${formId}-reason`}
            className={`input${reasonError ? ' invalid' : ''}`}
            value={reason}
            maxLength={500}
            placeholder="e.g. The body promotes a prohibited product."
            onChange={(event) => setReason(event.target.value)}
            aria-invalid={reasonError ? true : undefined}
            data-testid="review-reason"
          />
          {reasonError ? <p className="field-error">{reasonError}</p> : null}
        </div>
      ) : null}
    </FormDialog>
  );
}
