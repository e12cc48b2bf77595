// The landing page's top bar (spec 2 "Landing page"): Features, Pricing, Docs, Sign in and
// Get started (both to /login). On a phone the links fold into a menu.
import { Anchor, Burger, Button, Container, Group, Menu, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconMessageChatbot } from '@tabler/icons-react';
import { Link } from 'react-router';

const links = [
  { label: 'Features', href: '#features' },
  { label: 'Pricing', href: '#pricing' },
  { label: 'Docs', href: '/api/docs' },
];

export function LandingNav() {
  const [opened, { toggle, close }] = useDisclosure(false);
  return (
    <header style={{ borderBottom: '1px solid var(--mantine-color-gray-2)', background: 'white', position: 'sticky', top: 0, zIndex: 10 }}>
      <Container size="lg" h={60}>
        <Group h="100%" justify="space-between" wrap="nowrap">
          <Link to="/" aria-label="Parley home" style={{ textDecoration: 'none', color: 'inherit' }}>
            <Group gap={6} wrap="nowrap">
              <IconMessageChatbot size={26} color="var(--mantine-color-blue-6)" />
              <Text fw={800} size="lg">
                Parley
              </Text>
            </Group>
          </Link>
          <Group gap="lg" visibleFrom="sm" component="nav" aria-label="Main">
            {links.map((l) => (
              <Anchor key={l.label} href={l.href} c="dark" size="sm" fw={500}>
                {l.label}
              </Anchor>
            ))}
          </Group>
          <Group gap="xs" wrap="nowrap">
            <Button component={Link} to="/login" variant="subtle" size="sm" visibleFrom="xs">
              Sign in
            </Button>
            <Button component={Link} to="/login" size="sm">
              Get started
            </Button>
            <Menu opened={opened} onClose={close} position="bottom-end">
              <Menu.Target>
                <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Menu" />
              </Menu.Target>
              <Menu.Dropdown>
                {links.map((l) => (
                  <Menu.Item key={l.label} component="a" href={l.href}>
                    {l.label}
                  </Menu.Item>
                ))}
                <Menu.Item component={Link} to="/login">
                  Sign in
                </Menu.Item>
              </Menu.Dropdown>
            </Menu>
          </Group>
        </Group>
      </Container>
    </header>
  );
}
