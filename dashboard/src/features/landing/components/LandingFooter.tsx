import { Anchor, Container, Group, Text } from '@mantine/core';
import { Link } from 'react-router';

export function LandingFooter() {
  return (
    <footer style={{ borderTop: '1px solid var(--mantine-color-gray-2)' }}>
      <Container size="lg" py="lg">
        <Group justify="space-between" gap="sm">
          <Text size="sm" c="dimmed">
            © {new Date().getFullYear()} Parley · self-hosted AI customer support
          </Text>
          <Group gap="md" component="nav" aria-label="Legal">
            <Anchor component={Link} to="/terms" size="sm" c="dimmed">
              Terms
            </Anchor>
            <Anchor component={Link} to="/privacy" size="sm" c="dimmed">
              Privacy
            </Anchor>
            <Anchor href="/api/docs" size="sm" c="dimmed">
              API
            </Anchor>
          </Group>
        </Group>
      </Container>
    </footer>
  );
}
