import type { Right } from '../../../shared/permissions.ts';
import { PageHeader } from './page-header.tsx';
import { useRefusal } from './use-can.ts';

/**
 * A screen (or a part of one) opened by its address by a member without its right: which right
 * it needs and who can give it, instead of a screen whose every request is refused.
 */
export function ForbiddenPage({ title, right }: { title: string; right: Right }) {
  const reason = useRefusal(right);
  return (
    <div className="screen" data-testid="screen-forbidden">
      <PageHeader
        title={title}
        description="This screen is not open to your role in this workspace."
      />
      <div className="banner banner-info" role="alert">
        <span className="banner-text">
          You need the <code>{right}</code> right to open it.{' '}
          {reason ?? 'Ask an admin of the workspace.'}
        </span>
      </div>
    </div>
  );
}
