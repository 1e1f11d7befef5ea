import { useState, type ReactNode } from 'react';
import { apiBaseUrl } from '../../api/client.ts';
import { EditorSection } from '../../components/editor-section.tsx';
import { SecretBox } from '../../components/secret-box.tsx';
import { TextField } from '../../components/text-field.tsx';
import { channelFieldId, isWebUrl } from './channel-draft.ts';

const PUBLIC_URL_KEY = 'parley.channel.publicUrl';
const PUBLIC_URL_ID = 'channel-public-url';

function readPublicUrl(): string {
  try {
    return localStorage.getItem(PUBLIC_URL_KEY) ?? '';
  } catch {
    return '';
  }
}

function writePublicUrl(value: string): void {
  try {
    if (value) localStorage.setItem(PUBLIC_URL_KEY, value);
    else localStorage.removeItem(PUBLIC_URL_KEY);
  } catch {
    // Storage can be unavailable (private windows): the address then lasts this visit.
  }
}

/** A value to paste into Meta's dashboard, with a Copy button; `children` go under it. */
function CopyField({
  labelId,
  label,
  value,
  testId,
  copyTestId,
  children,
}: {
  labelId: string;
  label: string;
  value: string;
  testId: string;
  copyTestId: string;
  children: ReactNode;
}) {
  return (
    <div className="field">
      <span className="field-label" id={labelId}>
        {label}
      </span>
      <div role="group" aria-labelledby={labelId}>
        <SecretBox secret={value} testId={testId} copyTestId={copyTestId} />
      </div>
      {children}
    </div>
  );
}

interface WebhookSectionProps {
  webhookPath: string;
  /** The saved verify token (what Meta must be given). */
  savedVerifyToken: string;
  /** The verify token as typed, while the user changes it. */
  verifyToken: string;
  changingToken: boolean;
  tokenError: string | undefined;
  onChangeToken: (value: string) => void;
  onChangingToken: (changing: boolean) => void;
}

/**
 * What to paste into Meta's app dashboard: the callback URL (this desk's public address and the
 * webhook path) and the verify token. Meta calls the address from the internet, so the page's
 * own address only works once something public forwards to it.
 */
export function WebhookSection({
  webhookPath,
  savedVerifyToken,
  verifyToken,
  changingToken,
  tokenError,
  onChangeToken,
  onChangingToken,
}: WebhookSectionProps) {
  const ownAddress = apiBaseUrl();
  const [publicUrl, setPublicUrl] = useState(readPublicUrl);
  const typed = publicUrl.trim().replace(/\/+$/, '');
  const urlError =
    typed && !isWebUrl(typed)
      ? 'An address starting with https:// (or http://), like https://desk.yourshop.com.'
      : undefined;
  const base = typed && !urlError ? typed : ownAddress;
  const callbackUrl = `${base}${webhookPath}`;
  const insecure = !callbackUrl.startsWith('https://');
  const tokenId = channelFieldId('verifyToken');

  return (
    <EditorSection title="Webhook">
      <p className="hint">
        Meta delivers incoming messages and delivery receipts to this address. In your Meta app’s
        dashboard, open <strong>WhatsApp → Configuration</strong>, paste the callback URL and the
        verify token, then subscribe to the <code>messages</code> and{' '}
        <code>message_template_status_update</code> fields.
      </p>
      <TextField
        id={PUBLIC_URL_ID}
        label={
          <>
            Public address <span className="optional">(optional)</span>
          </>
        }
        type="url"
        value={publicUrl}
        placeholder={ownAddress}
        error={urlError}
        onChange={(value) => {
          setPublicUrl(value);
          writePublicUrl(value.trim());
        }}
        hint={
          <>
            Meta must reach this desk from the internet. This computer’s own address,{' '}
            <code>{ownAddress}</code>, only works behind a tunnel (such as cloudflared or ngrok) or
            on your team’s server: enter the public address that forwards here. It is remembered on
            this computer only.
          </>
        }
      />
      <CopyField
        labelId="channel-callback-label"
        label="Callback URL"
        value={callbackUrl}
        testId="channel-callback-url"
        copyTestId="channel-copy-callback"
      >
        {insecure ? (
          <p className="hint channel-warning" data-testid="channel-callback-warning">
            Meta accepts only an <code>https://</code> callback URL with a valid certificate.
          </p>
        ) : null}
      </CopyField>
      {changingToken ? (
        <TextField
          id={tokenId}
          label="Verify token"
          mono
          value={verifyToken}
          error={tokenError}
          onChange={onChangeToken}
          hint="Any 8 to 128 letters, digits or . _ ~ -, the same here and in Meta’s dashboard."
        >
          <p>
            <button
              type="button"
              className="link-button"
              onClick={() => onChangingToken(false)}
              data-testid={`${tokenId}-keep`}
            >
              Keep the saved one
            </button>
          </p>
        </TextField>
      ) : (
        <CopyField
          labelId="channel-verify-token-label"
          label="Verify token"
          value={savedVerifyToken}
          testId="channel-verify-token-value"
          copyTestId="channel-copy-verify-token"
        >
          <p className="hint">
            Meta sends it back when you save the callback URL, to prove the address is yours.{' '}
            <button
              type="button"
              className="link-button"
              onClick={() => onChangingToken(true)}
              data-testid="channel-verify-token-change"
            >
              Use another token
            </button>
          </p>
        </CopyField>
      )}
    </EditorSection>
  );
}
