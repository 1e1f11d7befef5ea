import { useContactImport } from '../../stores/contact-import.ts';
import { useState } from 'react';
import { api, errorMessage } from '../../api/client.ts';
import { useRoute } from '../../stores/route.ts';
import { selectIsTestMode, useSession } from '../../stores/session.ts';
import './inbox-list.css';

/** A number the simulator accepts, so a first look at the inbox needs no real customer. */
export const SAMPLE_CUSTOMER_PHONE = '+14155552671';
const SAMPLE_MESSAGE = 'Hi! I saw your shop online — do you ship abroad?';

/**
 * First run (no conversation at all): what to do next, each with a button that does it. In test
 * mode a simulated customer can write in; the conversation then arrives like any other, live.
 */
export function EmptyInbox() {
  const navigate = useRoute((s) => s.navigate);
  const testMode = useSession(selectIsTestMode);
  const [simulating, setSimulating] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const simulate = async () => {
    setSimulating(true);
    setError(null);
    try {
      await api.simulator.inbound({ phone: SAMPLE_CUSTOMER_PHONE, message: SAMPLE_MESSAGE });
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setSimulating(false);
    }
  };

  return (
    <div className="inbox-empty empty-inbox" data-testid="inbox-empty">
      <p className="inbox-empty-title">No conversations yet</p>
      <p>Customers’ messages land here. To get going:</p>
      <ol className="empty-inbox-steps">
        <li>
          <span>Create a message template, to write first to customers.</span>
          <button
            type="button"
            className="button button-small"
            onClick={() => navigate('templates')}
            data-testid="first-run-templates"
          >
            Create a template
          </button>
        </li>
        <li>
          <span>Import your contacts from a CSV file.</span>
          <button
            type="button"
            className="button button-small"
            onClick={() => {
              useContactImport.getState().setDialogOpen(true);
              navigate('contacts');
            }}
            data-testid="first-run-contacts"
          >
            Import contacts
          </button>
        </li>
        {testMode ? (
          <li>
            <span>See how it works: a test customer writes in.</span>
            <button
              type="button"
              className="button button-small button-primary"
              disabled={simulating}
              onClick={() => void simulate()}
              data-testid="first-run-simulate"
            >
              {simulating ? 'Sending…' : 'Simulate a customer message'}
            </button>
          </li>
        ) : null}
      </ol>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
