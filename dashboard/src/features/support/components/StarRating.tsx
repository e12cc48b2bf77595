// 1-5 stars with a real label, for both resolve dialogs.
import { Input, Rating } from '@mantine/core';

export function StarRating({ label, value, onChange }: { label: string; value: number; onChange: (v: number) => void }) {
  return (
    <Input.Wrapper label={label} id="resolve-rating" labelProps={{ id: 'resolve-rating-label' }}>
      <Rating
        value={value}
        onChange={(v) => onChange(v || 1)}
        count={5}
        size="lg"
        aria-labelledby="resolve-rating-label"
        getSymbolLabel={(i) => `${i} star${i === 1 ? '' : 's'}`}
      />
    </Input.Wrapper>
  );
}
