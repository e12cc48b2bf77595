import { Avatar, type AvatarProps } from '@mantine/core';

/** The bot's icon, or (no icon, or a broken image) a generated initial-letter avatar. */
export function BotAvatar({ name, icon, ...props }: { name?: string | null; icon?: string | null } & Omit<AvatarProps, 'name'>) {
  const initial = (name?.trim()?.[0] ?? 'A').toUpperCase();
  return (
    <Avatar src={icon || null} alt={name ?? 'Assistant'} color="initials" name={name || 'Assistant'} {...props}>
      {initial}
    </Avatar>
  );
}
