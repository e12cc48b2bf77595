// 1-5 stars with a real label, for both resolve dialogs.
import { useId } from 'react';
import { Rating, Stack, Text } from '@mantine/core';

export function StarRating({ label, value, onChange }: { label: string; value: number; onChange: (v: number) => void }) {
  const id = useId();
  return (
    <Stack gap={4}>
      <Text size="sm" fw={500} id={id}>
        {label}
      </Text>
      <div role="radiogroup" aria-labelledby={id}>
        <Rating
          value={value}
          onChange={(v) => onChange(v || 1)}
          count={5}
          size="lg"
          getSymbolLabel={(i) => `${i} star${i === 1 ? '' : 's'}`}
        />
      </div>
    </Stack>
  );
}
