// Bot Settings' "Assistant Details" card: the active switch, then name, description, website and
// icon, editable after creation (roles that edit the bot); a changed website is offered for crawling.
import { useEffect, useMemo, useState } from 'react';
import { Avatar, Button, Card, FileButton, Group, Modal, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { IconUpload } from '@tabler/icons-react';
import { useSnapshot } from 'valtio';
import type { Bot } from '../api/bots';
import { DESCRIPTION_MAX, createDetailsForm, detailsErrors, detailsPatch, type DetailsForm } from '../stores/details';
import { BotStatusSwitch } from './BotStatusSwitch';

/** A preview URL for a picked file, revoked when it changes. */
function useObjectUrl(file: File | null): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!file || typeof URL.createObjectURL !== 'function') return setUrl(null); // jsdom has none
    const u = URL.createObjectURL(file);
    setUrl(u);
    return () => URL.revokeObjectURL(u);
  }, [file]);
  return url;
}

export function BotDetailsCard({ bot, readOnly = false }: { bot: Bot; readOnly?: boolean }) {
  // One form per bot: another bot picked starts from its own values.
  const form = useMemo(() => createDetailsForm(bot), [bot._id]);
  return (
    <Card withBorder padding="lg" maw={720} data-testid="bot-details">
      <Group justify="space-between" mb="md" wrap="wrap">
        <Title order={4}>Assistant Details</Title>
        <BotStatusSwitch bot={bot} size="md" />
      </Group>
      <DetailsFields bot={bot} form={form} readOnly={readOnly} />
    </Card>
  );
}

function DetailsFields({ bot, form, readOnly }: { bot: Bot; form: DetailsForm; readOnly: boolean }) {
  const snap = useSnapshot(form.state);
  const { actions } = form;
  const errors = detailsErrors(snap);
  const changed = snap.icon !== null || Object.keys(detailsPatch(bot, snap)).length > 0;
  const preview = useObjectUrl(snap.icon as File | null);

  return (
    <Stack gap="sm">
      <Group gap="md">
        <Avatar src={preview ?? bot.icon ?? undefined} size="lg" radius="md" alt="Assistant icon">
          {(bot.name ?? 'A').trim()[0]?.toUpperCase()}
        </Avatar>
        {!readOnly && (
          <FileButton onChange={actions.setIcon} accept="image/png,image/jpeg,image/gif,image/webp">
            {(props) => (
              <Button variant="light" size="xs" leftSection={<IconUpload size={14} />} {...props}>
                {snap.icon ? 'Choose another icon' : 'Change icon'}
              </Button>
            )}
          </FileButton>
        )}
        {snap.icon && (
          <Button variant="subtle" color="gray" size="xs" onClick={() => actions.setIcon(null)}>
            Keep current icon
          </Button>
        )}
      </Group>
      {snap.iconError && (
        <Text size="sm" c="red">
          {snap.iconError}
        </Text>
      )}
      <TextInput
        label="Assistant Name"
        required
        value={snap.name}
        onChange={(e) => actions.setName(e.currentTarget.value)}
        error={errors.name}
        disabled={readOnly}
      />
      <Textarea
        label="Description"
        placeholder="What this assistant helps with"
        autosize
        minRows={2}
        maxRows={6}
        value={snap.description}
        onChange={(e) => actions.setDescription(e.currentTarget.value)}
        description={`${[...snap.description.trim()].length}/${DESCRIPTION_MAX}`}
        inputWrapperOrder={['label', 'input', 'description', 'error']}
        error={errors.description}
        disabled={readOnly}
      />
      <TextInput
        label="Website"
        description="The site this assistant answers for"
        placeholder="https://example.com"
        value={snap.websiteUrl}
        onChange={(e) => actions.setWebsiteUrl(e.currentTarget.value)}
        error={errors.websiteUrl}
        disabled={readOnly}
      />
      {!readOnly && (
        <Group justify="flex-end">
          <Button
            onClick={() => void actions.save()}
            loading={snap.saving}
            disabled={!changed || Object.keys(errors).length > 0}
          >
            Save Details
          </Button>
        </Group>
      )}
      <Modal opened={snap.crawlOffer !== null} onClose={actions.declineCrawl} title="Crawl the new website?" centered>
        <Text mb="xs">
          The assistant answers from its training data, not from the website field. Crawl{' '}
          <Text span fw={600} style={{ wordBreak: 'break-all' }}>
            {snap.crawlOffer}
          </Text>{' '}
          now to add its pages?
        </Text>
        <Text size="sm" c="dimmed" mb="lg">
          It is added as a website source on the Training page, where you can follow its progress.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={actions.declineCrawl} disabled={snap.crawling}>
            Not now
          </Button>
          <Button onClick={() => void actions.crawl()} loading={snap.crawling}>
            Crawl website
          </Button>
        </Group>
      </Modal>
    </Stack>
  );
}
