// What an owner pastes into a site to get the widget: the loader script with the bot id, and the
// public chat link. Both point at this server's origin.

export function chatUrl(botId: string, origin = window.location.origin): string {
  return `${origin}/chat?id=${encodeURIComponent(botId)}`;
}

export function scriptTag(botId: string, origin = window.location.origin, theme = 'light'): string {
  return `<script src="${origin}/widget.js" data-bot-id="${botId}" data-theme="${theme}" async></script>`;
}

export type SnippetKind = 'react' | 'html' | 'wordpress';

export function embedSnippet(kind: SnippetKind, botId: string, origin = window.location.origin): string {
  switch (kind) {
    case 'html':
      return `<!-- Paste before </body> -->\n${scriptTag(botId, origin)}`;
    case 'react':
      return `import { useEffect } from 'react';

export function ChatWidget() {
  useEffect(() => {
    const script = document.createElement('script');
    script.src = '${origin}/widget.js';
    script.async = true;
    script.dataset.botId = '${botId}';
    script.dataset.theme = 'light';
    document.body.appendChild(script);
    return () => script.remove();
  }, []);
  return null;
}`;
    case 'wordpress':
      return `<?php
// Add to your theme's functions.php (or a code-snippets plugin).
add_action('wp_footer', function () {
  echo '${scriptTag(botId, origin)}';
});`;
  }
}
