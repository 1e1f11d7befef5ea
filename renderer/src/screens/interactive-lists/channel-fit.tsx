import {
  cloudApiListProblem,
  CLOUD_API_LIST_ROWS,
  LIST_LIMITS,
  rowCount,
  type ListContent,
} from '../../../../shared/list-rules.ts';
import { CheckIcon } from '../../components/icons.tsx';

/** One channel's verdict on the list: what it takes, and whether this list fits. */
function Verdict({
  name,
  when,
  takes,
  refusal,
  testId,
}: {
  name: string;
  when: string;
  takes: string;
  refusal: string | null;
  testId: string;
}) {
  return (
    <li
      className={`list-channel ${refusal ? 'list-channel-refuses' : 'list-channel-takes'}`}
      data-testid={testId}
      data-fits={refusal ? 'false' : 'true'}
    >
      <span className="list-channel-mark" aria-hidden="true">
        {refusal ? '!' : <CheckIcon />}
      </span>
      <span>
        <strong>{name}</strong> <span className="muted">({when})</span>: {takes}{' '}
        <span className="list-channel-verdict">
          {refusal ? `Refuses this list: ${refusal}.` : 'Takes this list.'}
        </span>
      </span>
    </li>
  );
}

/**
 * Which channel takes what, as the list is built (shared/list-rules.ts): the simulated channel
 * takes the spec's limits, the WhatsApp Cloud API at most 10 rows in all.
 */
export function ChannelFit({ list }: { list: Pick<ListContent, 'sections'> }) {
  const rows = rowCount(list);
  const cloud = cloudApiListProblem(list);
  return (
    <div className="list-channels" data-testid="list-channels">
      <p className="list-channels-title">Which channel takes this list</p>
      <ul>
        <Verdict
          name="Simulated channel"
          when="test mode, and live mode until WhatsApp is connected"
          takes={`up to ${LIST_LIMITS.sections} sections of ${LIST_LIMITS.rowsPerSection} rows each.`}
          refusal={null}
          testId="list-channel-simulated"
        />
        <Verdict
          name="WhatsApp Cloud API"
          when="live mode once connected"
          takes={`at most ${CLOUD_API_LIST_ROWS} rows in all, across sections.`}
          refusal={
            cloud
              ? `it has ${rows} rows, ${rows - CLOUD_API_LIST_ROWS} too many — live sends answer “list_limits_exceeded”`
              : null
          }
          testId="list-channel-cloud"
        />
      </ul>
      <p className="hint">
        Both take titles of up to {LIST_LIMITS.rowTitle} characters (sections and rows),
        descriptions of up to {LIST_LIMITS.rowDescription} and a button text of up to{' '}
        {LIST_LIMITS.buttonText}.
      </p>
    </div>
  );
}
