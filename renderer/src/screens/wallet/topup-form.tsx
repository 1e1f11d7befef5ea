import { useState, type FormEvent } from 'react';
import { formatMicros, parseAmountToMicros } from '../../../../shared/money.ts';
import { ApiRequestError, errorMessage } from '../../api/client.ts';
import { FormError } from '../../components/form-error.tsx';
import { notify } from '../../stores/toasts.ts';
import { useWallet } from '../../stores/wallet.ts';

export function TopupForm({ currency }: { currency: string }) {
  const topup = useWallet((s) => s.topup);
  const [amount, setAmount] = useState('');
  const [description, setDescription] = useState('');
  const [busy, setBusy] = useState(false);
  const [amountError, setAmountError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setAmountError(null);
    setFormError(null);
    const micros = parseAmountToMicros(amount);
    if (micros === null || micros <= 0) {
      setAmountError('Enter a positive amount such as 25 or 25.50 (at most 6 decimals).');
      return;
    }
    setBusy(true);
    try {
      await topup(micros, description.trim() || undefined);
      notify('success', `Added ${formatMicros(micros, currency)} to the wallet.`);
      setAmount('');
      setDescription('');
    } catch (e) {
      if (e instanceof ApiRequestError && e.param === 'amountMicros') setAmountError(e.message);
      else setFormError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="form-stack" onSubmit={submit} noValidate data-testid="topup-form">
      <div className="field">
        <label htmlFor="topup-amount">Amount ({currency})</label>
        <input
          id="topup-amount"
          className={`input input-amount${amountError ? ' invalid' : ''}`}
          inputMode="decimal"
          autoComplete="off"
          placeholder="25.00"
          value={amount}
          aria-invalid={amountError ? true : undefined}
          aria-describedby={amountError ? 'topup-amount-error' : undefined}
          onChange={(event) => setAmount(event.target.value)}
          data-testid="topup-amount"
        />
        {amountError ? (
          <p id="topup-amount-error" className="field-error" data-testid="topup-amount-error">
            {amountError}
          </p>
        ) : null}
      </div>
      <div className="field">
        <label htmlFor="topup-description">
          Description <span className="optional">(optional)</span>
        </label>
        <input
          id="topup-description"
          className="input"
          maxLength={200}
          placeholder="e.g. Invoice 2024-113"
          value={description}
          onChange={(event) => setDescription(event.target.value)}
          data-testid="topup-description"
        />
      </div>
      <FormError error={formError} />
      <div>
        <button
          type="submit"
          className="button button-primary"
          disabled={busy}
          data-testid="topup-submit"
        >
          {busy ? 'Adding…' : 'Top up'}
        </button>
      </div>
    </form>
  );
}
