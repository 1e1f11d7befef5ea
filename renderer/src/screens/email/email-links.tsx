import { useEffect, useState } from 'react';
import { create } from 'zustand';
import { errorMessage } from '../../api/client.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { formatDateTime } from '../../components/format.ts';
import type { EmailLinkReport } from '../../../../shared/schemas/email.ts';
import { emailApi, type EmailCampaign } from '../../stores/email-api.ts';
import { formatCount } from '../campaigns/campaign-format.ts';

/** Bumped when a click is known to have happened here (the simulator's): the report is read again. */
const useLinksStale = create<{ n: number }>()(() => ({ n: 0 }));
export const refreshEmailLinks = (): void => useLinksStale.setState((s) => ({ n: s.n + 1 }));

type Load =
  | { state: 'loading' }
  | { state: 'ready'; report: EmailLinkReport }
  | { state: 'error'; error: string };

/**
 * Which links of the email were clicked (GET /v1/email/campaigns/:id/links): one row per link,
 * with how many recipients followed it and how often. Read again whenever the campaign's click
 * count moves (its progress events), so a click shows up without a refresh.
 */
export function EmailLinksCard({ campaign }: { campaign: EmailCampaign }) {
  const [load, setLoad] = useState<Load>({ state: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const clicked = campaign.counts.clicked;
  const stale = useLinksStale((s) => s.n);

  useEffect(() => {
    let cancelled = false;
    emailApi.links(campaign.id).then(
      (report) => {
        if (!cancelled) setLoad({ state: 'ready', report });
      },
      (e: unknown) => {
        if (!cancelled) setLoad({ state: 'error', error: errorMessage(e) });
      },
    );
    return () => {
      cancelled = true;
    };
    // A new clicker (a progress event moves `clicked`), a simulated click, a refresh or a retry
    // reads the report again.
  }, [campaign.id, clicked, stale, attempt]);

  return (
    <section
      className="card card-flush email-links-card"
      aria-labelledby="email-links-title"
      data-testid="email-links"
    >
      <div className="card-header">
        <h2 id="email-links-title" className="card-title">
          Links clicked
        </h2>
        <div className="row-actions">
          {load.state === 'ready' ? (
            <span className="hint" data-testid="email-links-summary">
              {formatCount(load.report.totalClicks)}{' '}
              {load.report.totalClicks === 1 ? 'click' : 'clicks'} by{' '}
              {formatCount(load.report.clickedRecipients)}{' '}
              {load.report.clickedRecipients === 1 ? 'recipient' : 'recipients'}
            </span>
          ) : null}
          <button
            type="button"
            className="button button-small"
            onClick={() => setAttempt((n) => n + 1)}
            data-testid="email-links-refresh"
          >
            Refresh
          </button>
        </div>
      </div>
      {load.state === 'error' ? (
        <ErrorBanner message={load.error} onRetry={() => setAttempt((n) => n + 1)} />
      ) : load.state === 'loading' ? (
        <p className="muted">Reading the clicks…</p>
      ) : load.report.data.length === 0 ? (
        <p className="muted" data-testid="email-links-none">
          No link has been clicked yet. Clicks are counted when a recipient follows a link (opens
          are an estimate, clicks are not).
        </p>
      ) : (
        <div className="table-wrap">
          <table className="table table-compact email-links-table" data-testid="email-links-table">
            <caption className="visually-hidden">
              Each link of the email, with how many recipients clicked it and how often
            </caption>
            <thead>
              <tr>
                <th scope="col">Link</th>
                <th scope="col" className="num">
                  Recipients
                </th>
                <th scope="col" className="num">
                  Clicks
                </th>
                <th scope="col">Last click</th>
              </tr>
            </thead>
            <tbody>
              {load.report.data.map((link) => (
                <tr key={link.url} data-testid="email-link-row">
                  <td className="email-link-url">
                    <a href={link.url} title={link.url} target="_blank" rel="noreferrer noopener">
                      {link.url}
                    </a>
                  </td>
                  <td className="num" data-testid="email-link-recipients">
                    {formatCount(link.recipients)}
                  </td>
                  <td className="num" data-testid="email-link-clicks">
                    {formatCount(link.clicks)}
                  </td>
                  <td className="nowrap">
                    <time dateTime={link.lastClickAt}>{formatDateTime(link.lastClickAt)}</time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
