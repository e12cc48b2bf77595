// The spec's route table. Inside the shell every route needs a signed-in user; the screens that
// work on one bot also need an active bot. /agent-dashboard, /bot-settings and /teams do not: the
// spec gives them their own "no bot selected" states.
import { createBrowserRouter, createMemoryRouter, type RouteObject } from 'react-router';
import { RedirectIfSignedIn, RequireAuth, RequireBot } from './routes/guards';
import { Shell } from './layout/Shell';
import { LandingRoute } from './routes/landing';
import { LoginRoute } from './routes/login';
import { SignupRoute } from './routes/signup';
import { AuthSuccessRoute } from './routes/auth-success';
import { MyBotsRoute } from './routes/my-bots';
import { ServerPageRoute } from './routes/server-page';
import { NotFoundRoute } from './routes/not-found';
import {
  AgentDashboardRoute,
  BotSettingsRoute,
  BotScreenRoute,
  PageRoute,
  TeamsRoute,
} from './routes/pages';

const botScreens: [path: string, title: string][] = [
  ['/stats', 'Analytics'],
  ['/botchat', 'Chat'],
  ['/preview', 'Customize'],
  ['/training', 'Training'],
  ['/sessions', 'Sessions'],
  ['/integrations', 'Integrations'],
];

export const routes: RouteObject[] = [
  { path: '/', element: <LandingRoute /> },
  { path: '/login', element: <RedirectIfSignedIn><LoginRoute /></RedirectIfSignedIn> },
  { path: '/signup', element: <RedirectIfSignedIn><SignupRoute /></RedirectIfSignedIn> },
  { path: '/auth-success', element: <AuthSuccessRoute /> },
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
      { path: '/docs', element: <PageRoute title="Documentation" /> },
      { path: '/agent-dashboard', element: <AgentDashboardRoute /> },
      { path: '/leads', element: <PageRoute title="Leads" /> },
      { path: '/teams', element: <TeamsRoute /> },
      { path: '/bot-settings', element: <BotSettingsRoute /> },
      { path: '/billing', element: <PageRoute title="Billing and Subscription" /> },
      { path: '/settings', element: <PageRoute title="Settings" /> },
      ...botScreens.map(([path, title]) => ({
        path,
        element: (
          <RequireBot>
            <BotScreenRoute title={title} />
          </RequireBot>
        ),
      })),
    ],
  },
  { path: '*', element: <NotFoundRoute /> },
];

export const createAppRouter = () => createBrowserRouter(routes);
export const createTestRouter = (initialEntries: string[]) =>
  createMemoryRouter(routes, { initialEntries });
