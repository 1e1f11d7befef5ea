import type { TemplateStatus } from '../../../shared/schemas/index.ts';
import { STATUS_LABELS } from '../stores/templates.ts';

export function TemplateStatusBadge({ status }: { status: TemplateStatus }) {
  return (
    <span
      className={`badge tstatus tstatus-${status.toLowerCase()}`}
      data-testid="template-status"
      data-status={status}
    >
      {STATUS_LABELS[status]}
    </span>
  );
}
