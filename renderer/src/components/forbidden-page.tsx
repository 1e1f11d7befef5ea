import { ROUTE_RIGHTS, SCREEN_NAMES, type Route } from '../stores/route.ts';
import { PageHeader } from './page-header.tsx';
import { useRefusal } from './use-can.ts';

/**
 * A screen opened by its address by a member without its right: which right it needs and who
 * can give it, instead of a screen whose every request is refused.
 */
export function ForbiddenPage({ route }: { route: Route }) {
  const right = ROUTE_RIGHTS[route];
  const reason = useRefusal(right);
  return (
    <div className="screen" data-testid="screen-forbidden">
      <PageHeader
        title={SCREEN_NAMES[route]}
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
