import { useRef, useState } from 'react';

type CopyState = 'idle' | 'copied' | 'selected';

/**
 * A secret shown once (an API key, a workflow's signing secret) with a Copy button; where the
 * clipboard is refused the text is selected for the user to copy.
 */
export function SecretBox({
  secret,
  testId,
  copyTestId,
}: {
  secret: string;
  testId: string;
  copyTestId: string;
}) {
  const secretRef = useRef<HTMLElement>(null);
  const [copy, setCopy] = useState<CopyState>('idle');

  const select = (): boolean => {
    const node = secretRef.current;
    const selection = window.getSelection();
    if (!node || !selection) return false;
    selection.selectAllChildren(node);
    return true;
  };

  const copySecret = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopy('copied');
      return;
    } catch {
      // The async clipboard can be refused (permissions, insecure origin): select the text instead.
    }
    if (select()) {
      const copied = document.execCommand('copy');
      setCopy(copied ? 'copied' : 'selected');
    }
  };

  return (
    <>
      <div className="secret-box">
        <code ref={secretRef} className="secret" data-testid={testId}>
          {secret}
        </code>
        <button
          type="button"
          className="button"
          onClick={() => void copySecret()}
          data-testid={copyTestId}
        >
          {copy === 'copied' ? 'Copied' : 'Copy'}
        </button>
      </div>
      {copy === 'selected' ? (
        <p className="hint">It is selected: press Ctrl+C (⌘C on a Mac) to copy it.</p>
      ) : null}
    </>
  );
}
