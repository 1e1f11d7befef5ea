import { useEffect, useState } from 'react';
import { ApiRequestError, errorMessage, isAbortError } from '../../api/client.ts';
import { emailApi, type CampaignTarget, type EmailAudience } from '../../stores/email-api.ts';

export interface EmailAudienceCheck {
  /** `checking` keeps showing the last answer while the next is on its way. */
  state: 'idle' | 'checking' | 'ready' | 'error';
  result: EmailAudience | null;
  error: { message: string; param: string | undefined } | null;
}

interface Answer {
  key: string;
  result: EmailAudience | null;
  error: EmailAudienceCheck['error'];
}

/**
 * Asks the core whom an audience reaches by email (and whom it leaves out) once the editor's
 * audience has stopped changing for `delayMs`; a newer question cancels the one under way.
 */
export function useEmailAudience(
  audience: CampaignTarget | null,
  delayMs = 350,
): EmailAudienceCheck {
  const key = audience ? JSON.stringify(audience) : '';
  const [answer, setAnswer] = useState<Answer | null>(null);

  useEffect(() => {
    if (!key) return;
    const controller = new AbortController();
    const timer = window.setTimeout(() => {
      emailApi.audience(JSON.parse(key) as CampaignTarget, controller.signal).then(
        (result) => setAnswer({ key, result, error: null }),
        (e: unknown) => {
          if (isAbortError(e)) return;
          setAnswer({
            key,
            result: null,
            error: {
              message: errorMessage(e),
              param: e instanceof ApiRequestError ? e.param : undefined,
            },
          });
        },
      );
    }, delayMs);
    return () => {
      window.clearTimeout(timer);
      controller.abort();
    };
  }, [key, delayMs]);

  if (!key) return { state: 'idle', result: null, error: null };
  if (!answer) return { state: 'checking', result: null, error: null };
  if (answer.key !== key) return { state: 'checking', result: answer.result, error: null };
  return answer.error
    ? { state: 'error', result: null, error: answer.error }
    : { state: 'ready', result: answer.result, error: null };
}
