// Team Management (/teams): the active bot's team, or, with ?action=accept&botId&memberId&token,
// the confirmation step of an invitation link (after which the joined bot becomes active).
import { useNavigate, useSearchParams } from 'react-router';
import { useSnapshot } from 'valtio';
import { session } from '@/features/auth/stores/session';
import { activeBot, bots, loadBots, selectBot } from '@/features/bots/stores/bots';
import { loadInvitations } from '@/features/invitations/stores/invitations';
import { NoBot } from '@/components/NoBot';
import { AcceptInvitation } from '@/features/teams/components/AcceptInvitation';
import { TeamPage } from '@/features/teams/components/TeamPage';
import { parseInvitationLink } from '@/features/teams/stores/acceptance';

export function TeamsRoute() {
  const bot = activeBot(useSnapshot(bots));
  const { user } = useSnapshot(session);
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const link = parseInvitationLink(params);

  if (link) {
    return (
      <AcceptInvitation
        link={link}
        emailVerified={user?.emailVerified !== false}
        onAccepted={async (joined) => {
          await loadBots();
          void loadInvitations();
          selectBot(joined._id);
          navigate('/teams', { replace: true });
        }}
        onDeclined={() => {
          void loadInvitations();
          navigate('/dashboard', { replace: true });
        }}
      />
    );
  }
  if (!bot) return <NoBot title="No bot selected" message="Select a bot to manage its team." action />;
  return <TeamPage botId={bot._id} botName={bot.name || 'Untitled Assistant'} />;
}
