import { PageHeader } from '../../components/page-header.tsx';
import { useCan } from '../../components/use-can.ts';
import { AssignmentSettings } from './assignment-settings.tsx';
import { desktopDesks, JoinDesk } from './join-desk.tsx';
import { ShareDesk } from './share-desk.tsx';
import { TeamAgents } from './team-agents.tsx';
import './team.css';

/**
 * Settings → Team (README "Working as a team"): sharing this desk on the network, how work is
 * assigned, who is online with what, and — in the desktop app — joining another team's desk.
 */
export function TeamScreen() {
  const mayShare = useCan('team');
  const mayReadSettings = useCan('workspace.read');
  const desks = desktopDesks();
  return (
    <div className="screen" data-testid="screen-team">
      <PageHeader
        eyebrow="Settings"
        title="Team"
        description="Work one inbox together: share this desk with teammates on your network, decide how conversations find an agent, and see who is online with what."
      />
      {mayShare || mayReadSettings ? (
        <div className={mayShare && mayReadSettings ? 'grid-2 team-top' : 'team-top'}>
          {mayShare ? <ShareDesk /> : null}
          {mayReadSettings ? <AssignmentSettings /> : null}
        </div>
      ) : null}
      <TeamAgents />
      {desks ? <JoinDesk desks={desks} /> : null}
    </div>
  );
}
