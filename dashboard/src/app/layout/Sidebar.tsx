// The signed-in navigation: groups per spec, the bot picker, the profile card with real credits.
import { useCallback, useState, type ComponentType, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import {
  Anchor,
  Avatar,
  Badge,
  Box,
  Button,
  Group,
  NavLink,
  Paper,
  Progress,
  Stack,
  Text,
  UnstyledButton,
} from '@mantine/core';
import {
  IconChartBar,
  IconChevronDown,
  IconCreditCard,
  IconHeadset,
  IconLayoutDashboard,
  IconLogout,
  IconMessage,
  IconMessageChatbot,
  IconMessages,
  IconPalette,
  IconPlug,
  IconSchool,
  IconSettings,
  IconTool,
  IconUserDollar,
  IconUsers,
} from '@tabler/icons-react';
import { Link, useLocation, useNavigate } from 'react-router';
import { useSnapshot } from 'valtio';
import { useDeferredPart } from '@/components/deferred-part';
import { session, signOutOfSession } from '@/features/auth/stores/session';
import type { Platform } from '@/features/auth/api/auth';
import { BotAvatar } from '@/features/bots/components/BotAvatar';
import { activeBot, bots, selectBot } from '@/features/bots/stores/bots';
import { can, type BotAction } from '@/lib/permissions';
import type { FromState } from '@/app/routes/guards';

interface Item {
  to: string;
  label: string;
  icon: ComponentType<{ size?: number }>;
  /** What the screen is for. Every role may look at every bot screen (the server lets them
   * read), so a role without this action sees the entry marked view-only: the screen offers it
   * nothing to change. */
  acts?: BotAction;
}

const dashboardGroup: Item[] = [{ to: '/dashboard', label: 'My Bots', icon: IconLayoutDashboard }];
const botGroup: Item[] = [
  { to: '/stats', label: 'Analytics', icon: IconChartBar },
  { to: '/botchat', label: 'Chat', icon: IconMessage, acts: 'editMessage' },
  { to: '/preview', label: 'Customize', icon: IconPalette, acts: 'editBot' },
  { to: '/training', label: 'Training', icon: IconSchool, acts: 'editBot' },
  { to: '/sessions', label: 'Sessions', icon: IconMessages, acts: 'handleSupport' },
  { to: '/agent-dashboard', label: 'Agent Dashboard', icon: IconHeadset, acts: 'handleSupport' },
  { to: '/leads', label: 'Leads', icon: IconUserDollar },
  { to: '/teams', label: 'Teams', icon: IconUsers, acts: 'manageTeam' },
  { to: '/integrations', label: 'Integrations', icon: IconPlug },
  { to: '/bot-settings', label: 'Bot Settings', icon: IconTool, acts: 'editBot' },
];

/** The bot entries (in the spec's order) for `role`, each marked view-only when the role may
 * not do what the screen is for. */
export function botItemsFor(role: unknown): { item: Item; viewOnly: boolean }[] {
  return botGroup.map((item) => ({ item, viewOnly: item.acts !== undefined && !can(role, item.acts) }));
}

const accountGroup: Item[] = [
  { to: '/billing', label: 'Billing', icon: IconCreditCard },
  { to: '/settings', label: 'Settings', icon: IconSettings },
];

/** Share of the plan's credits used, 0-100; 0 when the plan reports no total. */
export function creditsUsedPercent(p: Pick<Platform, 'creditsUsed' | 'creditsTotal'> | undefined): number {
  if (!p || !(p.creditsTotal > 0)) return 0;
  return Math.min(100, Math.max(0, (p.creditsUsed / p.creditsTotal) * 100));
}

function planLabel(planType: string | undefined): string {
  if (!planType || planType === 'free') return 'Free Plan';
  return 'Premium Member';
}

function Group_({
  title,
  items,
  onNavigate,
}: {
  title: string;
  items: { item: Item; viewOnly?: boolean }[];
  onNavigate: () => void;
}) {
  const { pathname } = useLocation();
  return (
    <Stack gap={2}>
      <Text size="xs" fw={700} c="dimmed" tt="uppercase" px="sm" mb={4}>
        {title}
      </Text>
      {items.map(({ item: { to, label, icon: Icon }, viewOnly }) => (
        <NavLink
          key={to}
          component={Link}
          to={to}
          label={label}
          leftSection={<Icon size={18} />}
          rightSection={
            viewOnly ? (
              <Badge size="xs" variant="light" color="gray" data-testid={`view-only-${to.slice(1)}`}>
                View only
              </Badge>
            ) : null
          }
          active={pathname === to}
          onClick={onNavigate}
        />
      ))}
    </Stack>
  );
}

const plain = (items: Item[]) => items.map((item) => ({ item }));

function BotPicker({ onPicked }: { onPicked: () => void }) {
  const snap = useSnapshot(bots);
  // The menu arrives as the user reaches for the picker.
  const { ref, intent, full } = useDeferredPart(() => import('./BotPickerMenu'));
  const current = activeBot(snap);
  if (snap.bots.length === 0) return null;
  const trigger = (
    <UnstyledButton aria-label="Choose bot" aria-haspopup="menu" aria-expanded={false} w="100%">
      <Paper withBorder p="xs">
        <Group gap="xs" wrap="nowrap">
          <BotAvatar name={current?.name} icon={current?.icon} size="sm" />
          <Box style={{ flex: 1, minWidth: 0 }}>
            <Text size="sm" fw={600} truncate>
              {current ? current.name || 'Untitled Assistant' : 'Select a bot'}
            </Text>
            <Text size="xs" c="dimmed" truncate>
              {current ? current.description || 'AI Assistant' : `${snap.bots.length} available`}
            </Text>
          </Box>
          <IconChevronDown size={16} />
        </Group>
      </Paper>
    </UnstyledButton>
  );
  return (
    <Box ref={ref} {...intent}>
      {full ? (
        <full.BotPickerMenu
          trigger={trigger}
          bots={snap.bots}
          activeBotId={snap.activeBotId}
          onPick={(id) => {
            selectBot(id);
            onPicked();
          }}
        />
      ) : (
        trigger
      )}
    </Box>
  );
}

function ProfileCard({ onNavigate }: { onNavigate: () => void }) {
  const snap = useSnapshot(session);
  const navigate = useNavigate();
  const location = useLocation();
  const plan = snap.platform[0];
  const used = creditsUsedPercent(plan);
  return (
    <Paper withBorder p="sm">
      <Group gap="sm" wrap="nowrap">
        <Avatar src={snap.user?.profilePicture || null} name={snap.user?.name || 'User'} color="initials" />
        <Box style={{ minWidth: 0 }}>
          <Text size="sm" fw={600} truncate>
            {snap.user?.name || 'User'}
          </Text>
          <Anchor component={Link} to="/billing" size="xs" c="dimmed" data-testid="plan-label" onClick={onNavigate}>
            {planLabel(plan?.planType)}
          </Anchor>
        </Box>
      </Group>
      {/* The credits and their bar open Billing, where the plan is changed. */}
      <UnstyledButton component={Link} to="/billing" display="block" w="100%" mt="sm" data-testid="credits-link" aria-label="Credits: open Billing" onClick={onNavigate}>
        <Group justify="space-between">
          <Text size="xs" c="dimmed">
            Credits
          </Text>
          <Text size="xs" fw={600} data-testid="credits">
            {plan?.remainingCredits ?? 0}
          </Text>
        </Group>
        <Progress value={used} size="sm" mt={4} aria-label="Credits used" />
      </UnstyledButton>
      <Button
        variant="subtle"
        color="gray"
        fullWidth
        mt="sm"
        leftSection={<IconLogout size={16} />}
        onClick={() => {
          signOutOfSession();
          // Signing in again comes back here (as when a guard sends a signed-out user to /login).
          const from = { pathname: location.pathname, search: location.search, hash: location.hash };
          navigate('/login', { replace: true, state: { from } satisfies FromState });
        }}
      >
        Sign Out
      </Button>
    </Paper>
  );
}

/**
 * The links scroll in Mantine's ScrollArea (a thin scrollbar shows while the pointer is over
 * them), fetched as the user reaches for them; until then a plain box holds them, which scrolls
 * the same with its own scrollbar hidden, as ScrollArea's is. The links are drawn once, into an
 * element of their own that moves into ScrollArea when it comes: a link under the pointer or
 * being pressed stays the same link. (Their events reach NavScroll through the portal, not
 * through the box around them.)
 */
function NavScroll({ children }: { children: ReactNode }) {
  const { ref, intent, full } = useDeferredPart(() => import('./NavScrollArea'));
  const [links] = useState(() => document.createElement('div'));
  const host = useCallback(
    (node: HTMLDivElement | null) => {
      node?.appendChild(links);
    },
    [links],
  );
  return (
    <>
      {full ? (
        <full.ScrollArea ref={ref} style={{ flex: 1 }}>
          <div ref={host} />
        </full.ScrollArea>
      ) : (
        <Box ref={ref} style={{ flex: 1, position: 'relative', overflowY: 'auto', scrollbarWidth: 'none' }}>
          <div ref={host} />
        </Box>
      )}
      {createPortal(<div {...intent}>{children}</div>, links)}
    </>
  );
}

/** `onNavigate` closes the mobile drawer after a link click or a bot pick. */
export function Sidebar({ onNavigate = () => {} }: { onNavigate?: () => void }) {
  const { loggedIn } = useSnapshot(session);
  const botSnap = useSnapshot(bots);
  if (!loggedIn) return null;
  const current = activeBot(botSnap);
  return (
    <Stack h="100%" gap="md" p="md">
      <Group gap="xs">
        <IconMessageChatbot size={22} />
        <Text fw={800} size="lg">
          Parley
        </Text>
      </Group>
      <BotPicker onPicked={onNavigate} />
      <NavScroll>
        <Stack gap="lg">
          <Group_ title="Dashboard" items={plain(dashboardGroup)} onNavigate={onNavigate} />
          {current && <Group_ title="Bot Management" items={botItemsFor(current.role)} onNavigate={onNavigate} />}
          <Group_ title="Account" items={plain(accountGroup)} onNavigate={onNavigate} />
        </Stack>
      </NavScroll>
      <ProfileCard onNavigate={onNavigate} />
    </Stack>
  );
}
