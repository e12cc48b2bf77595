// Terms (/terms) and Privacy (/privacy), linked from the landing page's footer. Parley is
// self-hosted: the "operator" is whoever runs this server, and these pages say what the
// software on it does with the data it is given.
import type { ReactNode } from 'react';
import { Container, List, Stack, Text, Title } from '@mantine/core';
import { LandingFooter } from '@/features/landing/components/LandingFooter';
import { LandingNav } from '@/features/landing/components/LandingNav';

function LegalPage({ title, updated, children }: { title: string; updated: string; children: ReactNode }) {
  return (
    <>
      <LandingNav />
      <Container size="sm" py="xl" component="main">
        <Stack gap="md">
          <Title order={1}>{title}</Title>
          <Text size="sm" c="dimmed">
            Last updated {updated}
          </Text>
          {children}
        </Stack>
      </Container>
      <LandingFooter />
    </>
  );
}

const H = ({ children }: { children: ReactNode }) => (
  <Title order={3} mt="md">
    {children}
  </Title>
);

export function TermsRoute() {
  return (
    <LegalPage title="Terms of Service" updated="25 November 2026">
      <Text>
        These terms cover your use of this Parley server: the dashboard, the chat widget and the API. The server is
        run by its operator, the organisation that installed it; by creating an account you agree to them.
      </Text>
      <H>Your account</H>
      <Text>
        Keep your password to yourself; you are responsible for what is done with your account. Members you invite to
        a bot act within the role you give them (admin, editor, viewer or agent), and you can change or remove their
        access at any time.
      </Text>
      <H>Your content</H>
      <Text>
        You keep the rights to what you upload or crawl for training (web pages, PDFs, text, Q&amp;A pairs) and to the
        conversations and leads your bots collect. You confirm you may use that content, and that the websites you
        ask Parley to crawl are yours or allow it. Parley uses your content only to run your bots.
      </Text>
      <H>Acceptable use</H>
      <List spacing={4}>
        <List.Item>No unlawful, deceptive or harassing content in bots or their training data.</List.Item>
        <List.Item>No attempts to reach other teams&apos; data, to get around rate limits or plan limits, or to overload the service.</List.Item>
        <List.Item>Tell your visitors they are talking to an automated assistant when the law requires it.</List.Item>
      </List>
      <H>Plans and limits</H>
      <Text>
        Each plan has monthly limits on conversations, assistants and AI credits, shown on the pricing section and
        your billing page. When a limit is reached, new conversations or AI replies stop until the next month or an
        upgrade; nothing already saved is removed.
      </Text>
      <H>Answers from AI</H>
      <Text>
        Assistants answer from the knowledge you give them and may be wrong or incomplete. Check what matters, and use
        the human handoff for anything a customer relies on.
      </Text>
      <H>Ending</H>
      <Text>
        You can delete your bots at any time, which deletes their conversations, leads and files. The operator may
        suspend accounts that break these terms.
      </Text>
    </LegalPage>
  );
}

export function PrivacyRoute() {
  return (
    <LegalPage title="Privacy Policy" updated="25 November 2026">
      <Text>
        Parley is self-hosted: everything below is stored in this server&apos;s own database and data directory, under
        the control of its operator. Nothing is sent to the makers of Parley.
      </Text>
      <H>What is stored</H>
      <List spacing={4}>
        <List.Item>Accounts: name, email address, a password hash (argon2; never the password), profile picture, time zone and language, notification choices.</List.Item>
        <List.Item>Sign-ins with Google or GitHub: the provider&apos;s account id and email address.</List.Item>
        <List.Item>Bots: their settings, training sources and the text extracted from them.</List.Item>
        <List.Item>Conversations: the messages of visitors, bots and agents, with their times, ratings and feedback.</List.Item>
        <List.Item>Leads: the name, email, phone and company visitors choose to leave.</List.Item>
        <List.Item>Usage: conversations and AI credits used per month, and a log of account activity.</List.Item>
      </List>
      <H>Who else receives data</H>
      <List spacing={4}>
        <List.Item>
          A language-model provider, only if the operator configured one (an OpenAI-compatible endpoint): it receives a
          visitor&apos;s question, recent turns of the conversation and the matching passages of the bot&apos;s knowledge. With
          the default answerer nothing leaves the server.
        </List.Item>
        <List.Item>The operator&apos;s mail server, for verification, password and notification emails.</List.Item>
        <List.Item>Websites you ask Parley to crawl receive its requests, as any visitor&apos;s.</List.Item>
      </List>
      <H>Cookies and storage</H>
      <Text>
        The dashboard keeps your sign-in token and screen state in your browser&apos;s local storage. The only cookie is a
        10-minute one that protects a Google or GitHub sign-in. The chat widget remembers a visitor&apos;s conversation in
        the browser so a reload continues it. There are no advertising or tracking cookies.
      </Text>
      <H>Keeping and deleting</H>
      <Text>
        Data is kept until it is deleted: deleting a conversation, a lead or a bot removes it and what belongs to it
        (files included). To have your account removed, or to ask what is stored about you, contact the operator of
        this server.
      </Text>
    </LegalPage>
  );
}
