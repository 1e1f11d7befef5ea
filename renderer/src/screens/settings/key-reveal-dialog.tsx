import { useRef, useState } from 'react';
import type { CreatedKey } from '../../../../shared/schemas/index.ts';
import { Dialog } from '../../components/dialog.tsx';
import { EnvBadge } from '../../components/env-badge.tsx';

type CopyState = 'idle' | 'copied' | 'selected';

export function KeyRevealDialog({
  created,
  onClose,
}: {
  created: CreatedKey;
  onClose: () => void;
}) {
  const keyRef = useRef<HTMLElement>(null);
  const [copy, setCopy] = useState<CopyState>('idle');

  const selectKey = (): boolean => {
    const node = keyRef.current;
    const selection = window.getSelection();
    if (!node || !selection) return false;
    selection.selectAllChildren(node);
    return true;
  };

  const copyKey = async () => {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopy('copied');
      return;
    } catch {
      // The async clipboard can be refused (permissions, insecure origin): select the text instead.
    }
    if (selectKey()) {
      const copied = document.execCommand('copy');
      setCopy(copied ? 'copied' : 'selected');
    }
  };

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
      <div className="secret-box">
        <code ref={keyRef} className="secret" data-testid="created-key">
          {created.key}
        </code>
        <button
          type="button"
          className="button"
          onClick={() => void copyKey()}
          data-testid="copy-key"
        >
          {copy === 'copied' ? 'Copied' : 'Copy'}
        </button>
      </div>
      {copy === 'selected' ? (
        <p className="hint">The key is selected: press Ctrl+C (⌘C on a Mac) to copy it.</p>
      ) : null}
      <div className="banner banner-warning" role="note">
        Copy this key now and store it somewhere safe. For your security it will not be shown again
        — if you lose it, revoke it and create a new one.
      </div>
    </Dialog>
  );
}
