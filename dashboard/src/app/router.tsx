// The spec's route table. Inside the shell every route needs a signed-in user; the screens that
// work on one bot also need an active bot. /agent-dashboard, /bot-settings and /teams do not: the
// spec gives them their own "no bot selected" states.
import type { JSX } from 'react';
import { createBrowserRouter, createMemoryRouter, type RouteObject } from 'react-router';
import { RedirectIfSignedIn, RequireAuth, RequireBot } from './routes/guards';
import { Shell } from './layout/Shell';
import { LandingRoute } from './routes/landing';
import { PrivacyRoute, TermsRoute } from './routes/legal';
import { LoginRoute } from './routes/login';
import { SignupRoute } from './routes/signup';
import { AuthSuccessRoute } from './routes/auth-success';
import { VerifyEmailRoute } from './routes/verify-email';
import { ForgotPasswordRoute } from './routes/forgot-password';
import { ResetPasswordRoute } from './routes/reset-password';
import { MyBotsRoute } from './routes/my-bots';
import { ServerPageRoute } from './routes/server-page';
import { NotFoundRoute } from './routes/not-found';
import { TeamsRoute } from './routes/teams';
import { StatsRoute } from './routes/stats';
import { TrainingRoute } from './routes/training';
import { PreviewRoute } from './routes/preview';
import { IntegrationsRoute } from './routes/integrations';
import { BotChatRoute } from './routes/botchat';
import { SessionsRoute } from './routes/sessions';
import { AgentDashboardRoute } from './routes/agent-dashboard';
import { BotSettingsRoute } from './routes/bot-settings';
import { SettingsRoute } from './routes/settings';
import { DocsRoute } from './routes/docs';
import { LeadsRoute } from './routes/leads';
import { BillingRoute } from './routes/billing';

/** Screens about one bot: without an active bot they send the user to /dashboard. */
const botScreens: [path: string, element: JSX.Element][] = [
  ['/stats', <StatsRoute />],
  ['/botchat', <BotChatRoute />],
  ['/preview', <PreviewRoute />],
  ['/training', <TrainingRoute />],
  ['/sessions', <SessionsRoute />],
  ['/integrations', <IntegrationsRoute />],
];

export const routes: RouteObject[] = [
  { path: '/', element: <LandingRoute /> },
  { path: '/terms', element: <TermsRoute /> },
  { path: '/privacy', element: <PrivacyRoute /> },
  { path: '/login', element: <RedirectIfSignedIn><LoginRoute /></RedirectIfSignedIn> },
  { path: '/signup', element: <RedirectIfSignedIn><SignupRoute /></RedirectIfSignedIn> },
  { path: '/auth-success', element: <AuthSuccessRoute /> },
  // Links mailed by the server: verify an address, choose a new password.
  { path: '/verify-email', element: <VerifyEmailRoute /> },
  { path: '/forgot-password', element: <RedirectIfSignedIn><ForgotPasswordRoute /></RedirectIfSignedIn> },
  { path: '/reset-password', element: <ResetPasswordRoute /> },
  // The visitor chat is the widget app, served by the server at these paths.
  { path: '/chat', element: <ServerPageRoute /> },
  { path: '/chatbot', element: <ServerPageRoute /> },
  {
    element: (
      <RequireAuth>
        <Shell />
      </RequireAuth>
    ),
    children: [
      { path: '/dashboard', element: <MyBotsRoute /> },
      { path: '/docs', element: <DocsRoute /> },
      { path: '/agent-dashboard', element: <AgentDashboardRoute /> },
      { path: '/leads', element: <LeadsRoute /> },
      { path: '/teams', element: <TeamsRoute /> },
      { path: '/bot-settings', element: <BotSettingsRoute /> },
      { path: '/billing', element: <BillingRoute /> },
      { path: '/settings', element: <SettingsRoute /> },
      ...botScreens.map(([path, element]) => ({ path, element: <RequireBot>{element}</RequireBot> })),
    ],
  },
  { path: '*', element: <NotFoundRoute /> },
];

export const createAppRouter = () => createBrowserRouter(routes);
export const createTestRouter = (initialEntries: string[]) =>
  createMemoryRouter(routes, { initialEntries });
