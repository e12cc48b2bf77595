import { useEffect, useState } from 'react';
import { Center, Loader, Text } from '@mantine/core';

const RELOADED_KEY = 'parley:server-page';

/**
 * /chat and /chatbot belong to the widget app, which the server serves on a full page load. A
 * client-side navigation that lands here reloads the page once so the server can answer it; if the
 * reload comes back to this app (server not serving the widget), it says so instead of looping.
 */
export function ServerPageRoute() {
  const href = window.location.href;
  const [looped] = useState(() => sessionStorage.getItem(RELOADED_KEY) === href);

  useEffect(() => {
    if (looped) {
      sessionStorage.removeItem(RELOADED_KEY);
      return;
    }
    sessionStorage.setItem(RELOADED_KEY, href);
    window.location.replace(href);
  }, [looped, href]);

  return (
    <Center h="100vh">
      {looped ? <Text c="dimmed">The chat page is not available on this server.</Text> : <Loader aria-label="Loading" />}
    </Center>
  );
}
