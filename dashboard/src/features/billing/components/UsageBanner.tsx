// The banner owners see across the dashboard when a limit of their plan is near (80 %) or
// reached, pointing to /billing. Read from the signed-in user's plan (`/api/me`'s platform).
import { Alert, Anchor, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { Link, useLocation } from 'react-router';
import { useSnapshot } from 'valtio';
import { session } from '@/features/auth/stores/session';
import { planNearLimits } from '../stores/format';

export function UsageBanner() {
  const snap = useSnapshot(session);
  const { pathname } = useLocation();
  const p = snap.platform[0];
  if (!p) return null;
  const near = planNearLimits(p);
  if (near.length === 0) return null;
  const reached = near.filter((n) => n.reached);
  const text =
    reached.length > 0
      ? `You have reached your plan's limit of ${reached.map((n) => n.label).join(' and ')}.`
      : `You have used ${near.map((n) => `${n.percent}% of your ${n.label}`).join(', ')} this month.`;
  return (
    <Alert
      color={reached.length > 0 ? 'red' : 'yellow'}
      variant="light"
      mb="md"
      icon={<IconAlertTriangle />}
      data-testid="usage-banner"
      title={reached.length > 0 ? 'Plan limit reached' : 'Approaching your plan limit'}
    >
      <Text size="sm">
        {text}{' '}
        {pathname !== '/billing' && (
          <Anchor component={Link} to="/billing" size="sm" fw={600}>
            Upgrade on the Billing page
          </Anchor>
        )}
      </Text>
    </Alert>
  );
}
