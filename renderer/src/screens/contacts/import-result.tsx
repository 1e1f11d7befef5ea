import type { ImportResult } from '../../../../shared/schemas/index.ts';

export function ImportResultView({
  result,
  fileName,
}: {
  result: ImportResult;
  fileName: string | null;
}) {
  return (
    <div className="import-result">
      <progress className="progress" value={1} max={1} aria-label="Import progress" />
      <p className="muted small">
        {fileName ? `${fileName}: ` : ''}
        {result.total.toLocaleString('en-US')} rows read
      </p>
      <p className="import-headline" data-testid="import-summary">
        Import finished: {result.created.toLocaleString('en-US')} created,{' '}
        {result.updated.toLocaleString('en-US')} updated, {result.failed.toLocaleString('en-US')}{' '}
        failed.
      </p>
      <div className="stat-row">
        <div className="stat stat-good">
          <span className="stat-value" data-testid="import-created">
            {result.created.toLocaleString('en-US')}
          </span>{' '}
          <span className="stat-label">created</span>
        </div>
        <div className="stat">
          <span className="stat-value" data-testid="import-updated">
            {result.updated.toLocaleString('en-US')}
          </span>{' '}
          <span className="stat-label">updated</span>
        </div>
        <div className={`stat${result.failed > 0 ? ' stat-bad' : ''}`}>
          <span className="stat-value" data-testid="import-failed">
            {result.failed.toLocaleString('en-US')}
          </span>{' '}
          <span className="stat-label">failed</span>
        </div>
      </div>
      {result.errors.length > 0 ? (
        <>
          <h3 className="section-title">Rows that were not imported</h3>
          <div className="table-wrap import-errors">
            <table className="table table-compact" data-testid="import-errors">
              <thead>
                <tr>
                  <th className="num">Line</th>
                  <th>Column</th>
                  <th>Reason</th>
                </tr>
              </thead>
              <tbody>
                {result.errors.map((error, index) => (
                  <tr key={index} data-testid="import-error-row">
                    <td className="num" data-testid="import-error-line">
                      {error.line}
                    </td>
                    <td>
                      {error.param ? <code>{error.param}</code> : <span className="muted">—</span>}
                    </td>
                    <td className="cell-wrap">{error.reason}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {result.errors.length < result.failed ? (
            <p className="hint">
              Showing the first {result.errors.length.toLocaleString('en-US')} of{' '}
              {result.failed.toLocaleString('en-US')} failed rows.
            </p>
          ) : null}
        </>
      ) : null}
    </div>
  );
}
