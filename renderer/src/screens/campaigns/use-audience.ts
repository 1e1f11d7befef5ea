import { useEffect, useState } from 'react';
import { ApiRequestError, errorMessage, isAbortError } from '../../api/client.ts';
import {
  campaignsApi,
  type AudienceQuery,
  type CampaignAudience,
} from '../../stores/campaigns-api.ts';

/** The core's answer about an audience, as the editor shows it. */
export interface Check<R> {
  /** `checking` keeps showing the last answer while the next is on its way. */
  state: 'idle' | 'checking' | 'ready' | 'error';
  result: R | null;
  error: { message: string; param: string | undefined } | null;
}

export type AudienceCheck = Check<CampaignAudience>;

interface Answer<R> {
  key: string;
  result: R | null;
  error: Check<R>['error'];
}

/**
 * Asks the core about a question (`ask`, a stable function) once the editor's fields have stopped
 * changing it for `delayMs`; a newer question cancels the one under way. Nothing is asked while
 * the question is null.
 */
export function useCheck<Q, R>(
  question: Q | null,
  ask: (question: Q, signal: AbortSignal) => Promise<R>,
  delayMs = 350,
): Check<R> {
  const key = question ? JSON.stringify(question) : '';
  const [answer, setAnswer] = useState<Answer<R> | null>(null);

  useEffect(() => {
    if (!key) return;
    const controller = new AbortController();
    const timer = window.setTimeout(() => {
      ask(JSON.parse(key) as Q, controller.signal).then(
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
  }, [key, ask, delayMs]);

  if (!key) return { state: 'idle', result: null, error: null };
  if (!answer) return { state: 'checking', result: null, error: null };
  if (answer.key !== key) return { state: 'checking', result: answer.result, error: null };
  return answer.error
    ? { state: 'error', result: null, error: answer.error }
    : { state: 'ready', result: answer.result, error: null };
}

/** Who a target reaches (and a sample recipient's message, rendered), asked of the core. */
export const useAudience = (query: AudienceQuery | null, delayMs?: number): AudienceCheck =>
  useCheck(query, campaignsApi.audience, delayMs);
