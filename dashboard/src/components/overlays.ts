// Loaded by LazyOverlays.tsx only: Modal and Drawer (focus trap, overlay, scroll lock) in a chunk
// of their own.
export { Drawer, Modal } from '@mantine/core';
