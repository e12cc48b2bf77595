import { Center, Loader } from '@mantine/core';

/** Shown while a screen's code is on its way: the full page, or (`inline`) the shell's content. */
export function PageLoader({ inline = false }: { inline?: boolean }) {
  return (
    <Center h={inline ? 240 : '100vh'}>
      <Loader aria-label="Loading" />
    </Center>
  );
}
