// Loaded by the sidebar as the user reaches for its links (see Sidebar's NavScroll).
export { ScrollArea } from '@mantine/core';
