// The landing page's middle: what Parley does (#features), the phone section, the four steps
// of spec 2 ("Create Your Bot, Train & Customize, Configure Settings, Go Live") and three
// testimonials. Every claim here is something the product does.
import { Avatar, Card, Container, Group, List, SimpleGrid, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import {
  IconBolt,
  IconChartLine,
  IconDeviceMobile,
  IconHeadset,
  IconLock,
  IconRobot,
  IconSettings,
  IconSchool,
  IconRocket,
  IconUsers,
} from '@tabler/icons-react';

const features = [
  { icon: IconSchool, title: 'Trained on your content', text: 'Crawl your website, upload PDFs, paste text or write Q&A pairs. Answers cite where they come from.' },
  { icon: IconHeadset, title: 'Human handoff', text: 'A visitor asks for a person and your agents take the conversation live, with typing and ratings.' },
  { icon: IconUsers, title: 'Leads and teams', text: 'Capture contact details, score and export leads, and invite admins, editors, viewers and agents.' },
  { icon: IconChartLine, title: 'Analytics over time', text: 'Conversations, handoffs, response times, satisfaction and the questions your bot could not answer.' },
  { icon: IconLock, title: 'Your server, your data', text: 'One process on SQLite or PostgreSQL. Conversations never leave your infrastructure unless you choose a model API.' },
  { icon: IconBolt, title: 'One line to embed', text: 'Paste a script tag and the widget appears on your site, styled to match it.' },
];

export function Features() {
  return (
    <section id="features">
      <Container size="lg" py={64}>
        <Title order={2} ta="center" mb="xs">
          Everything a support desk needs
        </Title>
        <Text c="dimmed" ta="center" mb="xl">
          From the first answer to the last lead.
        </Text>
        <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} spacing="lg">
          {features.map((f) => (
            <Card key={f.title} withBorder padding="lg" radius="md">
              <ThemeIcon size={40} radius="md" variant="light">
                <f.icon size={22} />
              </ThemeIcon>
              <Text fw={600} mt="md">
                {f.title}
              </Text>
              <Text size="sm" c="dimmed" mt={4}>
                {f.text}
              </Text>
            </Card>
          ))}
        </SimpleGrid>
      </Container>
    </section>
  );
}

export function MobileApp() {
  return (
    <section aria-labelledby="mobile-title" style={{ background: 'var(--mantine-color-gray-0)' }}>
      <Container size="lg" py={64}>
        <SimpleGrid cols={{ base: 1, md: 2 }} spacing={48} style={{ alignItems: 'center' }}>
          <Stack gap="md">
            <ThemeIcon size={48} radius="md">
              <IconDeviceMobile size={28} />
            </ThemeIcon>
            <Title order={2} id="mobile-title">
              Answer customers from your phone
            </Title>
            <Text c="dimmed">
              The whole dashboard works on a phone: take a waiting conversation from the agent workspace, reply
              live, resolve it with a rating and check today&apos;s figures from wherever you are. Add it to your
              home screen and it opens like an app.
            </Text>
            <List spacing="xs" size="sm">
              <List.Item>Support queue and live chat with typing indicators</List.Item>
              <List.Item>New-lead and handoff notifications as they happen</List.Item>
              <List.Item>Analytics and leads at a glance</List.Item>
            </List>
          </Stack>
          <Card withBorder radius={28} padding="md" maw={300} mx="auto" w="100%" shadow="md" aria-hidden>
            <Stack gap="xs">
              <Text fw={600} size="sm">
                Support queue
              </Text>
              {['Where is my order?', 'Can I change my plan?', 'Do you ship abroad?'].map((q, i) => (
                <Card key={q} withBorder padding="xs" radius="md">
                  <Group justify="space-between" wrap="nowrap">
                    <Text size="xs" truncate>
                      {q}
                    </Text>
                    <Text size="xs" c={i === 0 ? 'red' : 'dimmed'} style={{ flexShrink: 0 }}>
                      {i === 0 ? 'Urgent' : 'Waiting'}
                    </Text>
                  </Group>
                </Card>
              ))}
            </Stack>
          </Card>
        </SimpleGrid>
      </Container>
    </section>
  );
}

const steps = [
  { icon: IconRobot, title: 'Create Your Bot', text: 'Name your assistant and give it your website address.' },
  { icon: IconSchool, title: 'Train & Customize', text: 'Add pages, PDFs, text and Q&A pairs; choose colours, texts and quick questions.' },
  { icon: IconSettings, title: 'Configure Settings', text: 'Set message limits, allowed sites, handoff, lead capture and your team.' },
  { icon: IconRocket, title: 'Go Live', text: 'Paste one script tag on your site, or share the hosted chat link.' },
];

export function HowItWorks() {
  return (
    <section aria-labelledby="how-title">
      <Container size="lg" py={64}>
        <Title order={2} ta="center" mb="xl" id="how-title">
          How it works
        </Title>
        <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }} spacing="lg">
          {steps.map((s, i) => (
            <Stack key={s.title} gap="xs" align="center" ta="center">
              <ThemeIcon size={56} radius="xl" variant="light">
                <s.icon size={28} />
              </ThemeIcon>
              <Text size="xs" c="dimmed" fw={600}>
                STEP {i + 1}
              </Text>
              <Text fw={600}>{s.title}</Text>
              <Text size="sm" c="dimmed">
                {s.text}
              </Text>
            </Stack>
          ))}
        </SimpleGrid>
      </Container>
    </section>
  );
}

const testimonials = [
  {
    name: 'Support lead',
    role: 'Online outdoor shop',
    text: 'We pointed it at our help pages on a Monday. By Wednesday it was answering shipping and returns questions, and the hard ones came to us with the whole conversation attached.',
  },
  {
    name: 'Founder',
    role: 'Invoicing software',
    text: 'Running it on our own server mattered to us. One binary, our PostgreSQL, and the unanswered-questions table tells us what to document next.',
  },
  {
    name: 'Operations manager',
    role: 'Regional travel agency',
    text: 'Our agents take chats from their phones between calls. Leads land in one list with the conversation they came from.',
  },
];

export function Testimonials() {
  return (
    <section aria-labelledby="testimonials-title" style={{ background: 'var(--mantine-color-gray-0)' }}>
      <Container size="lg" py={64}>
        <Title order={2} ta="center" mb="xl" id="testimonials-title">
          What teams say
        </Title>
        <SimpleGrid cols={{ base: 1, md: 3 }} spacing="lg">
          {testimonials.map((t) => (
            <Card key={t.role} withBorder padding="lg" radius="md" component="figure" m={0}>
              <Text component="blockquote" m={0} size="sm">
                “{t.text}”
              </Text>
              <Group mt="md" gap="sm" component="figcaption">
                <Avatar radius="xl" color="blue">
                  {t.name.charAt(0)}
                </Avatar>
                <div>
                  <Text size="sm" fw={600}>
                    {t.name}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {t.role}
                  </Text>
                </div>
              </Group>
            </Card>
          ))}
        </SimpleGrid>
      </Container>
    </section>
  );
}
