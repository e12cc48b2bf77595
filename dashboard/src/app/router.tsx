// The spec's route table. Inside the shell every route needs a signed-in user; the screens that
// work on one bot also need an active bot. /agent-dashboard, /bot-settings and /teams do not: the
// spec gives them their own "no bot selected" states.
import { Suspense, type JSX } from 'react';
import { useRoutes, type RouteObject } from 'react-router';
import { PageLoader } from '@/components/PageLoader';
import { lazyScreen } from './lazy-screen';
import { RedirectIfSignedIn, RequireAuth, RequireBot } from './routes/guards';

// Every screen is its own chunk, fetched when a route first needs it (lazyScreen): the first
// screen (/login, /dashboard) loads only its own code, not the agent workspace or the landing page.
const LandingRoute = lazyScreen(() => import('./routes/landing'), 'LandingRoute');
const TermsRoute = lazyScreen(() => import('./routes/legal'), 'TermsRoute');
const PrivacyRoute = lazyScreen(() => import('./routes/legal'), 'PrivacyRoute');
const LoginRoute = lazyScreen(() => import('./routes/login'), 'LoginRoute');
const SignupRoute = lazyScreen(() => import('./routes/signup'), 'SignupRoute');
const AuthSuccessRoute = lazyScreen(() => import('./routes/auth-success'), 'AuthSuccessRoute');
const VerifyEmailRoute = lazyScreen(() => import('./routes/verify-email'), 'VerifyEmailRoute');
const ForgotPasswordRoute = lazyScreen(() => import('./routes/forgot-password'), 'ForgotPasswordRoute');
const ResetPasswordRoute = lazyScreen(() => import('./routes/reset-password'), 'ResetPasswordRoute');
const ServerPageRoute = lazyScreen(() => import('./routes/server-page'), 'ServerPageRoute');
const NotFoundRoute = lazyScreen(() => import('./routes/not-found'), 'NotFoundRoute');
const Shell = lazyScreen(() => import('./layout/Shell'), 'Shell');
const MyBotsRoute = lazyScreen(() => import('./routes/my-bots'), 'MyBotsRoute');
const TeamsRoute = lazyScreen(() => import('./routes/teams'), 'TeamsRoute');
const StatsRoute = lazyScreen(() => import('./routes/stats'), 'StatsRoute');
const TrainingRoute = lazyScreen(() => import('./routes/training'), 'TrainingRoute');
const PreviewRoute = lazyScreen(() => import('./routes/preview'), 'PreviewRoute');
const IntegrationsRoute = lazyScreen(() => import('./routes/integrations'), 'IntegrationsRoute');
const BotChatRoute = lazyScreen(() => import('./routes/botchat'), 'BotChatRoute');
const SessionsRoute = lazyScreen(() => import('./routes/sessions'), 'SessionsRoute');
const AgentDashboardRoute = lazyScreen(() => import('./routes/agent-dashboard'), 'AgentDashboardRoute');
const BotSettingsRoute = lazyScreen(() => import('./routes/bot-settings'), 'BotSettingsRoute');
const SettingsRoute = lazyScreen(() => import('./routes/settings'), 'SettingsRoute');
const DocsRoute = lazyScreen(() => import('./routes/docs'), 'DocsRoute');
const LeadsRoute = lazyScreen(() => import('./routes/leads'), 'LeadsRoute');
const BillingRoute = lazyScreen(() => import('./routes/billing'), 'BillingRoute');

/** A screen outside the shell: a full-page loader while its chunk arrives. (Screens inside the
 *  shell wait in the shell's own boundary, which keeps the sidebar on screen.) */
const page = (element: JSX.Element) => <Suspense fallback={<PageLoader />}>{element}</Suspense>;

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
  { path: '/', element: page(<LandingRoute />) },
  { path: '/terms', element: page(<TermsRoute />) },
  { path: '/privacy', element: page(<PrivacyRoute />) },
  { path: '/login', element: <RedirectIfSignedIn>{page(<LoginRoute />)}</RedirectIfSignedIn> },
  { path: '/signup', element: <RedirectIfSignedIn>{page(<SignupRoute />)}</RedirectIfSignedIn> },
  { path: '/auth-success', element: page(<AuthSuccessRoute />) },
  // Links mailed by the server: verify an address, choose a new password.
  { path: '/verify-email', element: page(<VerifyEmailRoute />) },
  { path: '/forgot-password', element: <RedirectIfSignedIn>{page(<ForgotPasswordRoute />)}</RedirectIfSignedIn> },
  { path: '/reset-password', element: page(<ResetPasswordRoute />) },
  // The visitor chat is the widget app, served by the server at these paths.
  { path: '/chat', element: page(<ServerPageRoute />) },
  { path: '/chatbot', element: page(<ServerPageRoute />) },
  {
    element: <RequireAuth>{page(<Shell />)}</RequireAuth>,
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
  { path: '*', element: page(<NotFoundRoute />) },
];

/**
 * The route table, inside the <BrowserRouter> of main.tsx. A declarative router, not
 * createBrowserRouter's data router: no screen uses loaders, actions or fetchers, and the data
 * router's code is about 17 kB gzipped more on every first screen.
 */
export function AppRoutes() {
  return useRoutes(routes);
}
