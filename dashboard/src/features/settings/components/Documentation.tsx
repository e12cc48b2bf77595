// Documentation for Parley users (small-business owners): embedding, training, handoff, roles.
// Examples use this server's own origin, so what is shown can be pasted as is.
import type { ReactNode } from 'react';
import { Anchor, Card, Code, List, Stack, Table, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { CopyAction } from '@/features/bots/components/EmbedSnippets';
import { scriptTag } from '@/lib/embed';

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <Card withBorder padding="lg" component="section" aria-labelledby={`doc-${id}`} id={id}>
      <Title order={3} id={`doc-${id}`} mb="sm">
        {title}
      </Title>
      <Stack gap="sm">{children}</Stack>
    </Card>
  );
}

const ROLES: [role: string, can: string][] = [
  ['Owner', 'Everything, including deleting the assistant. The owner cannot be removed or have their role changed.'],
  ['Admin', 'Bot settings, training, customization, team management and all analytics.'],
  ['Editor', 'Bot settings, training data and customization; views analytics.'],
  ['Viewer', 'Read only: conversations, basic analytics and bot status.'],
  ['Agent', 'Live support: takes conversations where a visitor asked for a human, replies and resolves them.'],
];

/** With `bot` (the active one) the examples hold its real id, ready to paste. */
export function Documentation({
  origin = window.location.origin,
  bot,
}: {
  origin?: string;
  bot?: { id: string; name: string | null } | null;
}) {
  const id = bot?.id ?? 'YOUR_BOT_ID';
  const example = scriptTag(id, origin);
  return (
    <Stack gap="lg" maw={900}>
      <Card withBorder padding="lg">
        <Text fw={600} mb={4}>
          On this page
        </Text>
        <List size="sm" spacing={2}>
          <List.Item><Anchor href="#embed">Put the assistant on your website</Anchor></List.Item>
          <List.Item><Anchor href="#train">Train your assistant</Anchor></List.Item>
          <List.Item><Anchor href="#handoff">Hand a conversation to a person</Anchor></List.Item>
          <List.Item><Anchor href="#roles">Invite your team: roles</Anchor></List.Item>
        </List>
      </Card>

      <Section id="embed" title="Put the assistant on your website">
        <Text>
          Add one line to your website, just before the closing <Code>{'</body>'}</Code> tag. A chat button
          appears in the corner of every page that has it.
        </Text>
        <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }} data-testid="doc-snippet">
          {example}
        </Code>
        <div>
          <CopyAction value={example} />
        </div>
        <List spacing="xs">
          <List.Item>
            <Code>data-bot-id</Code> tells the widget which assistant to show.{' '}
            {bot ? (
              <>This example holds the id of {bot.name || 'your selected assistant'}; pick another assistant in the sidebar to get its code.</>
            ) : (
              <>Replace <Code>YOUR_BOT_ID</Code> with your assistant's id (select an assistant in the sidebar and this page fills it in).</>
            )}{' '}
            <Anchor component={Link} to="/integrations">Integrations</Anchor> has React, HTML and WordPress versions
            of the code.
          </List.Item>
          <List.Item>
            <Code>data-theme</Code> is <Code>light</Code> or <Code>dark</Code>. Colours, the welcome message, position
            and size come from the <Anchor component={Link} to="/preview">Customize</Anchor> screen, so changes there
            show up on your site without touching the code.
          </List.Item>
          <List.Item>
            <Text span fw={600}>URL whitelist.</Text> In <Anchor component={Link} to="/bot-settings">Bot Settings</Anchor>,
            list the websites allowed to show your assistant (for example <Code>https://shop.example.com</Code> or{' '}
            <Code>*.example.com</Code> for all its subdomains). With an empty list it works everywhere; with a list,
            other sites get no chat button and cannot use your credits.
          </List.Item>
          <List.Item>
            No website? Share the public chat page instead: <Code>{`${origin}/chat?id=${id}`}</Code> (the Share
            button on My Bots gives the exact link).
          </List.Item>
          <List.Item>
            Bot Settings also sets the <Text span fw={600}>Maximum Chat Text Size</Text> (100 to 10,000 characters,
            1,000 by default): longer visitor messages are refused.
          </List.Item>
        </List>
      </Section>

      <Section id="train" title="Train your assistant">
        <Text>
          Your assistant answers from what you give it on the{' '}
          <Anchor component={Link} to="/training">Training</Anchor> screen. Four kinds of sources:
        </Text>
        <Table withTableBorder striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Source</Table.Th>
              <Table.Th>Limits</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            <Table.Tr>
              <Table.Td>PDF documents</Table.Td>
              <Table.Td>PDF files under 10 MB each</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Td>Websites</Table.Td>
              <Table.Td>A page address; Parley reads that site (same website only) from there</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Td>Text</Table.Td>
              <Table.Td>Up to 5,000 characters per text</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Td>Q&amp;A pairs</Table.Td>
              <Table.Td>Up to 50 pairs; question up to 150 characters, answer up to 500</Table.Td>
            </Table.Tr>
          </Table.Tbody>
        </Table>
        <Text>Each list holds at most 20 sources; remove one to add another.</Text>
        <Text>
          Every source shows its status: <Text span fw={600}>processing</Text> while Parley reads it,{' '}
          <Text span fw={600}>completed</Text> once the assistant can answer from it, or{' '}
          <Text span fw={600}>failed</Text> with the reason (an unreadable PDF, a website that did not answer). Press{' '}
          <Text span fw={600}>Start Training</Text> after adding or removing sources so the assistant uses the latest
          content.
        </Text>
        <Text>
          Tip: Q&amp;A pairs give the most precise answers to the questions you hear most (opening hours, returns,
          shipping). When nothing matches, the assistant says so and offers to connect the visitor with a person.
        </Text>
      </Section>

      <Section id="handoff" title="Hand a conversation to a person">
        <List type="ordered" spacing="xs">
          <List.Item>
            A visitor who wants a person presses the talk-to-a-human button in the chat (it appears after 4
            messages or 10 seconds, when human handover is on in Customize) and leaves their details.
          </List.Item>
          <List.Item>
            The request appears at once for your agents on the{' '}
            <Anchor component={Link} to="/agent-dashboard">Agent Dashboard</Anchor> (Urgent Support Requests) and in{' '}
            <Anchor component={Link} to="/botchat">Chat</Anchor> (Support Queue). The visitor sees that a person is
            being connected.
          </List.Item>
          <List.Item>
            An agent presses <Text span fw={600}>Take Session</Text>. Only one agent gets it; the visitor sees the
            agent's name and the conversation continues live, with typing indicators both ways.
          </List.Item>
          <List.Item>
            When the question is answered, the agent resolves the conversation with a rating. The chat returns to the
            assistant, and the conversation shows as resolved in{' '}
            <Anchor component={Link} to="/sessions">Sessions</Anchor>.
          </List.Item>
        </List>
      </Section>

      <Section id="roles" title="Invite your team: roles">
        <Text>
          Invite people from <Anchor component={Link} to="/teams">Teams</Anchor>. They accept the invitation from their
          own dashboard; each person has one role per assistant.
        </Text>
        <Table withTableBorder>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Role</Table.Th>
              <Table.Th>What they can do</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {ROLES.map(([role, can]) => (
              <Table.Tr key={role}>
                <Table.Td fw={600}>{role}</Table.Td>
                <Table.Td>{can}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Section>
    </Stack>
  );
}
