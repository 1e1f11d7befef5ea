import { useEffect, useState } from 'react';
import { ApiRequestError, errorMessage, isAbortError } from '../../api/client.ts';
import {
  campaignsApi,
  type AudienceQuery,
  type CampaignAudience,
} from '../../stores/campaigns-api.ts';

export interface AudienceCheck {
  /** `checking` keeps showing the last answer while the next is on its way. */
  state: 'idle' | 'checking' | 'ready' | 'error';
  result: CampaignAudience | null;
  error: { message: string; param: string | undefined } | null;
}

interface Answer {
  key: string;
  result: CampaignAudience | null;
  error: AudienceCheck['error'];
}

/**
 * Asks the core who a target reaches (and renders a sample recipient's message) once the wizard's
 * fields have stopped changing for `delayMs`; a newer question cancels the one under way.
 */
export function useAudience(query: AudienceQuery | null, delayMs = 350): AudienceCheck {
  const key = query ? JSON.stringify(query) : '';
  const [answer, setAnswer] = useState<Answer | null>(null);

  useEffect(() => {
    if (!key) return;
    const controller = new AbortController();
    const timer = window.setTimeout(() => {
      campaignsApi.audience(JSON.parse(key) as AudienceQuery, controller.signal).then(
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
