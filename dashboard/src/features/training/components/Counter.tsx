import { Text } from '@mantine/core';
import { counterColour } from '../stores/rules';

/** "{length}/{max}", yellow above 70 % and red above 90 % of the limit. */
export function Counter({ length, max, testId }: { length: number; max: number; testId?: string }) {
  const colour = counterColour(length, max);
  return (
    <Text size="xs" c={colour} data-colour={colour} data-testid={testId} ta="right">
      {length}/{max}
    </Text>
  );
}
