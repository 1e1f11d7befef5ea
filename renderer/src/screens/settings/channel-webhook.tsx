import { useState } from 'react';
import { apiBaseUrl } from '../../api/client.ts';
import { EditorSection } from '../../components/editor-section.tsx';
import { errorAria, FieldError } from '../../components/field-error.tsx';
import { SecretBox } from '../../components/secret-box.tsx';
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
      <div className="field">
        <label htmlFor={PUBLIC_URL_ID}>
          Public address <span className="optional">(optional)</span>
        </label>
        <input
          id={PUBLIC_URL_ID}
          type="url"
          className={`input${urlError ? ' invalid' : ''}`}
          value={publicUrl}
          placeholder={ownAddress}
          autoComplete="off"
          spellCheck={false}
          {...errorAria(PUBLIC_URL_ID, urlError, urlError ? undefined : `${PUBLIC_URL_ID}-hint`)}
          onChange={(event) => {
            setPublicUrl(event.target.value);
            writePublicUrl(event.target.value.trim());
          }}
          data-testid={PUBLIC_URL_ID}
        />
        <FieldError fieldId={PUBLIC_URL_ID} message={urlError} />
        {urlError ? null : (
          <p className="hint" id={`${PUBLIC_URL_ID}-hint`}>
            Meta must reach this desk from the internet. This computer’s own address,{' '}
            <code>{ownAddress}</code>, only works behind a tunnel (such as cloudflared or ngrok) or
            on your team’s server: enter the public address that forwards here. It is remembered on
            this computer only.
          </p>
        )}
      </div>
      <div className="field">
        <span className="field-label" id="channel-callback-label">
          Callback URL
        </span>
        <div role="group" aria-labelledby="channel-callback-label">
          <SecretBox
            secret={callbackUrl}
            testId="channel-callback-url"
            copyTestId="channel-copy-callback"
          />
        </div>
        {insecure ? (
          <p className="hint channel-warning" data-testid="channel-callback-warning">
            Meta accepts only an <code>https://</code> callback URL with a valid certificate.
          </p>
        ) : null}
      </div>
      {changingToken ? (
        <div className="field">
          <label htmlFor={tokenId}>Verify token</label>
          <input
            id={tokenId}
            className={`input mono${tokenError ? ' invalid' : ''}`}
            value={verifyToken}
            autoComplete="off"
            spellCheck={false}
            {...errorAria(tokenId, tokenError, tokenError ? undefined : `${tokenId}-hint`)}
            onChange={(event) => onChangeToken(event.target.value)}
            data-testid={tokenId}
          />
          <FieldError fieldId={tokenId} message={tokenError} />
          {tokenError ? null : (
            <p className="hint" id={`${tokenId}-hint`}>
              Any 8 to 128 letters, digits or . _ ~ -, the same here and in Meta’s dashboard.
            </p>
          )}
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
        </div>
      ) : (
        <div className="field">
          <span className="field-label" id="channel-verify-token-label">
            Verify token
          </span>
          <div role="group" aria-labelledby="channel-verify-token-label">
            <SecretBox
              secret={savedVerifyToken}
              testId="channel-verify-token-value"
              copyTestId="channel-copy-verify-token"
            />
          </div>
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
        </div>
      )}
    </EditorSection>
  );
}
