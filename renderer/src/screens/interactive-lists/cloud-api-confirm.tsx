import { CLOUD_API_LIST_ROWS } from '../../../../shared/list-rules.ts';
import { Dialog } from '../../components/dialog.tsx';
import { FormButtons } from '../../components/form-buttons.tsx';

/**
 * Before saving a list the WhatsApp Cloud API would refuse: names the rule and what follows, and
 * saves only when the user says so (the simulated channel takes it; so may a later edit).
 */
export function CloudApiConfirm({
  rows,
  onCancel,
  onConfirm,
}: {
  rows: number;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  return (
    <Dialog
      title="Save a list the WhatsApp Cloud API will refuse?"
      onClose={onCancel}
      size="small"
      testId="list-cloud-confirm"
      footer={
        <FormButtons
          onCancel={onCancel}
          onConfirm={onConfirm}
          disabled={false}
          testId="list-cloud-confirm-save"
        >
          Save anyway
        </FormButtons>
      }
    >
      <p data-testid="list-cloud-confirm-rule">
        This list has <strong>{rows} rows</strong>. The WhatsApp Cloud API takes at most{' '}
        <strong>{CLOUD_API_LIST_ROWS} rows in a list</strong>, across all its sections: once
        WhatsApp is connected, live sends of this list will be refused (
        <code>list_limits_exceeded</code>).
      </p>
      <p>
        The simulated channel takes it, so it can be sent in test mode. To send it live, cancel and
        remove {rows - CLOUD_API_LIST_ROWS} rows.
      </p>
    </Dialog>
  );
}
