import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { isEmbedded } from './frame';
import { dashboardSignedIn, teamConversationUrl } from './teamLink';
import './chat.css';

const forward = teamConversationUrl(window.location.search, dashboardSignedIn(), isEmbedded());

if (forward) {
  window.location.replace(forward);
} else {
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
