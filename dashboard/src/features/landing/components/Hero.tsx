// The hero: a website box and 'Create Free Bot'. The URL is checked inline (spec 2 §5), then
// carried through sign-up into the create wizard, which crawls the site as the bot's first
// training source. 'Watch 2-min demo' opens the live demo chat (when there is one).
import { useState } from 'react';
import { Badge, Button, Container, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconPlayerPlay, IconWorld } from '@tabler/icons-react';
import { useNavigate } from 'react-router';
import { useSnapshot } from 'valtio';
import { isSignedIn, session } from '@/features/auth/stores/session';
import { returnAfterSignIn } from '@/features/auth/stores/after-sign-in';
import { checkWebsiteUrl } from '../lib/website-url';
import { rememberWebsite, wizardPath } from '../lib/pending-website';

export function Hero({ onWatchDemo }: { onWatchDemo: (() => void) | null }) {
  const navigate = useNavigate();
  const signedIn = isSignedIn(useSnapshot(session));
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const check = checkWebsiteUrl(value);
    if (!check.ok) {
      setError(check.error);
      return;
    }
    setError(null);
    if (signedIn) {
      navigate(wizardPath(check.url));
      return;
    }
    // Email sign-up reads it from the link; a Google/GitHub sign-up comes back to the wizard.
    rememberWebsite(check.url);
    returnAfterSignIn(wizardPath(check.url));
    navigate(`/signup?website=${encodeURIComponent(check.url)}`);
  };

  return (
    <section style={{ background: 'linear-gradient(180deg, #eff6ff 0%, #ffffff 100%)' }}>
      <Container size="lg" py={{ base: 48, sm: 80 }}>
        <Stack align="center" gap="lg">
          <Badge variant="light" size="lg">
            Self-hosted AI customer support
          </Badge>
          <Title ta="center" fz={{ base: 32, sm: 48 }} maw={820} lh={1.15}>
            Turn your website into an assistant that answers customers
          </Title>
          <Text c="dimmed" ta="center" maw={620} size="lg">
            Parley reads your site, documents and answers, replies to visitors around the clock, and hands the
            conversation to your team when a person is needed.
          </Text>
          <form onSubmit={submit} noValidate style={{ width: '100%', maxWidth: 620 }} aria-label="Create your bot">
            <Group gap="sm" align="flex-start" wrap="wrap">
              <TextInput
                aria-label="Your website URL"
                placeholder="https://your-website.com"
                leftSection={<IconWorld size={18} />}
                size="md"
                style={{ flex: '1 1 260px' }}
                value={value}
                onChange={(e) => {
                  setValue(e.currentTarget.value);
                  if (error) setError(null);
                }}
                error={error}
                inputMode="url"
                autoComplete="url"
              />
              <Button type="submit" size="md" style={{ flex: '0 0 auto' }}>
                Create Free Bot
              </Button>
            </Group>
          </form>
          <Group gap="md" justify="center">
            {onWatchDemo && (
              <Button variant="default" leftSection={<IconPlayerPlay size={16} />} onClick={onWatchDemo}>
                Watch 2-min demo
              </Button>
            )}
            <Text size="sm" c="dimmed">
              Free plan · no card needed
            </Text>
          </Group>
        </Stack>
      </Container>
    </section>
  );
}
