import { Box, Button, Container, Group, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';

// The marketing page arrives with its own issue; until then, the product's name and the way in.
export function LandingRoute() {
  return (
    <Box mih="100vh" bg="#f0f9ff">
      <Container size="md" py="xl">
        <Group justify="space-between">
          <Title order={3}>Parley</Title>
          <Group gap="sm">
            <Button component={Link} to="/login" variant="subtle">
              Sign in
            </Button>
            <Button component={Link} to="/login">
              Get started
            </Button>
          </Group>
        </Group>
        <Stack align="center" mt={120} gap="md">
          <Title ta="center">AI customer support for your website</Title>
          <Text c="dimmed" ta="center" maw={560}>
            Create an assistant, train it on your website, documents and answers, embed it on your site and
            hand conversations to your team when a person is needed.
          </Text>
        </Stack>
      </Container>
    </Box>
  );
}
