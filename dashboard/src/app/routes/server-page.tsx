import { useEffect } from 'react';
import { Center, Loader } from '@mantine/core';

/**
 * /chat and /chatbot belong to the widget app, which the server serves on a full page load. A
 * client-side navigation that lands here reloads the page so the server can answer it.
 */
export function ServerPageRoute() {
  useEffect(() => {
    window.location.replace(window.location.href);
  }, []);
  return (
    <Center h="100vh">
      <Loader aria-label="Loading" />
    </Center>
  );
}
