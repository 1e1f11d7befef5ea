interface ErrorBannerProps {
  message: string;
  onRetry?: () => void;
  testId?: string;
}

export function ErrorBanner({ message, onRetry, testId = 'error-banner' }: ErrorBannerProps) {
  return (
    <div className="banner banner-error" role="alert" data-testid={testId}>
      <span className="banner-text">{message}</span>
      {onRetry ? (
        <button type="button" className="button button-small" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}
