// Documentation: how to embed, train, hand off to people, and the team roles.
import { PageHeader } from '@/components/PageHeader';
import { Documentation } from '@/features/settings/components/Documentation';

export function DocsRoute() {
  return (
    <>
      <PageHeader title="Documentation" subtitle="Everything you need to run your assistant" />
      <Documentation />
    </>
  );
}
