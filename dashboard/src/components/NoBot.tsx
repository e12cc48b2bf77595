// The "no bot selected" state some screens show instead of redirecting (spec: agent dashboard,
// bot settings, teams).
import { Button, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';

export function NoBot({ title, message, action }: { title: string; message: string; action?: boolean }) {
  return (
    <Stack align="center" py="xl" gap="xs">
      <Title order={3}>{title}</Title>
      <Text c="dimmed">{message}</Text>
      {action && (
        <Button component={Link} to="/dashboard" mt="sm">
          Go to Dashboard
        </Button>
      )}
    </Stack>
  );
}
