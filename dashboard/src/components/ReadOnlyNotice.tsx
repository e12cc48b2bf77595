// The note on a screen the caller's role may look at but not change (the server would refuse).
import type { ReactNode } from 'react';
import { Alert } from '@mantine/core';
import { IconEye } from '@tabler/icons-react';

const asRole = (role: string) => (role === 'agent' ? 'a support agent' : `${/^[aeiou]/.test(role) ? 'an' : 'a'} ${role}`);

export function ReadOnlyNotice({ role, children }: { role: string; children?: ReactNode }) {
  return (
    <Alert color="gray" icon={<IconEye size={18} />} mb="md" data-testid="read-only-notice">
      {children ?? `You have view-only access to this screen as ${asRole(role)}.`} Ask the owner or an administrator if
      you need more.
    </Alert>
  );
}
