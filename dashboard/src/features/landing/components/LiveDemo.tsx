// The demo is the product itself: Parley's own widget.js with the demo bot (created by the
// server from a Q&A seed about Parley), a chat panel beside it, and the 'Watch 2-min demo'
// overlay on the same hosted chat. With PARLEY_DEMO_BOT=off the section shows screenshots of
// the product instead.
import { useEffect } from 'react';
import { Card, Container, Image, Modal, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';

/** Loads widget.js for `botId` while the landing page is shown; removes its launcher after. */
export function useDemoWidget(botId: string | null) {
  useEffect(() => {
    if (!botId) return;
    const script = document.createElement('script');
    script.src = '/widget.js';
    script.async = true;
    script.dataset.botId = botId;
    document.body.appendChild(script);
    return () => {
      script.remove();
      document.querySelectorAll(`[data-parley-widget="${CSS.escape(botId)}"]`).forEach((el) => el.remove());
    };
  }, [botId]);
}

const chatSrc = (botId: string) => `/chat?id=${encodeURIComponent(botId)}`;

/** `botId` undefined while the page asks whether there is a demo bot. */
export function LiveDemo({ botId }: { botId: string | null | undefined }) {
  return (
    <section aria-labelledby="demo-title">
      <Container size="lg" py={64}>
        <SimpleGrid cols={{ base: 1, md: 2 }} spacing={48} style={{ alignItems: 'center' }}>
          <Stack gap="md">
            <Title order={2} id="demo-title">
              {botId ? 'Ask it about Parley' : 'See it at work'}
            </Title>
            <Text c="dimmed">
              {botId
                ? 'This assistant is a Parley bot trained on questions about Parley. It answers from its knowledge, says so when it does not know, and hands you to a person when one of us is online. The chat button in the corner is the same widget your visitors would see.'
                : 'The dashboard where you train and watch your assistant, and the chat your visitors see.'}
            </Text>
          </Stack>
          {botId === undefined ? (
            <Skeleton h={520} radius="md" />
          ) : botId ? (
            <Card withBorder radius="md" padding={0} h={520} style={{ overflow: 'hidden' }}>
              <iframe title="Parley demo chat" src={chatSrc(botId)} style={{ border: 0, width: '100%', height: '100%' }} />
            </Card>
          ) : (
            <Stack gap="md" data-testid="demo-screenshots">
              <Image src="/landing/dashboard.png" alt="The Parley dashboard: analytics charts for a bot" radius="md" />
              <Image src="/landing/chat.png" alt="A visitor chatting with a Parley assistant" radius="md" />
            </Stack>
          )}
        </SimpleGrid>
      </Container>
    </section>
  );
}

/** 'Watch 2-min demo': the hosted chat of the demo bot in an overlay. */
export function DemoOverlay({ botId, opened, onClose }: { botId: string; opened: boolean; onClose: () => void }) {
  return (
    <Modal opened={opened} onClose={onClose} title="Parley, live" size="lg" centered>
      <div style={{ height: 'min(560px, 70vh)' }}>
        <iframe title="Parley demo chat (overlay)" src={chatSrc(botId)} style={{ border: 0, width: '100%', height: '100%' }} />
      </div>
    </Modal>
  );
}
