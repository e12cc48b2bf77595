import type { ReactNode } from 'react';
import { Anchor, Box, Button, Center, Paper, Stack, Text, Title } from '@mantine/core';
import { IconArrowLeft } from '@tabler/icons-react';
import { Link } from 'react-router';

/** The frame of the sign-in and sign-up screens: light blue background, back-to-home, one card. */
export function AuthLayout({ title, subtitle, children }: { title: string; subtitle: string; children: ReactNode }) {
  return (
    <Box mih="100vh" bg="#f0f9ff" p="md">
      <Button component={Link} to="/" variant="subtle" leftSection={<IconArrowLeft size={16} />}>
        Back to home
      </Button>
      <Center mt="xl">
        <Paper withBorder shadow="sm" p="xl" w="100%" maw={420}>
          <Stack gap="lg">
            <Stack gap={4}>
              <Title order={2}>{title}</Title>
              <Text c="dimmed" size="sm">
                {subtitle}
              </Text>
            </Stack>
            {children}
            <Text size="xs" c="dimmed" ta="center">
              By continuing you agree to the{' '}
              <Anchor size="xs" component={Link} to="/terms">
                Terms of Service
              </Anchor>{' '}
              and{' '}
              <Anchor size="xs" component={Link} to="/privacy">
                Privacy Policy
              </Anchor>
              .
            </Text>
          </Stack>
        </Paper>
      </Center>
    </Box>
  );
}
