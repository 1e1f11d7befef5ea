import type { CreatedKey } from '../../../../shared/schemas/index.ts';
import { Dialog } from '../../components/dialog.tsx';
import { EnvBadge } from '../../components/env-badge.tsx';
import { SecretBox } from '../../components/secret-box.tsx';

export function KeyRevealDialog({
  created,
  onClose,
}: {
  created: CreatedKey;
  onClose: () => void;
}) {
  return (
    <Dialog
      title="Your new API key"
      onClose={onClose}
      testId="key-reveal"
      footer={
        <button
          type="button"
          className="button button-primary"
          onClick={onClose}
          data-testid="key-reveal-close"
        >
          Done
        </button>
      }
    >
      <p className="dialog-lead">
        <strong>{created.name}</strong> <EnvBadge environment={created.environment} />
      </p>
      <SecretBox secret={created.key} testId="created-key" copyTestId="copy-key" />
      <div className="banner banner-warning" role="note">
        Copy this key now and store it somewhere safe. For your security it will not be shown again
        — if you lose it, revoke it and create a new one.
      </div>
    </Dialog>
  );
}
