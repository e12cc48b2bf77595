// The landing page (spec 2 "Landing page (/)"): navbar, hero with the website box, the live demo
// (Parley's own widget with the demo bot), features, the phone section, how it works,
// testimonials, pricing from the plans table, and the footer with Terms and Privacy.
import { useEffect, useState } from 'react';
import { Box } from '@mantine/core';
import { demoApi } from '@/features/landing/api/demo';
import { Hero } from '@/features/landing/components/Hero';
import { LandingFooter } from '@/features/landing/components/LandingFooter';
import { LandingNav } from '@/features/landing/components/LandingNav';
import { DemoOverlay, LiveDemo, useDemoWidget } from '@/features/landing/components/LiveDemo';
import { Pricing } from '@/features/landing/components/Pricing';
import { Features, HowItWorks, MobileApp, Testimonials } from '@/features/landing/components/Sections';

export function LandingRoute() {
  // undefined while asking the server; null when there is no demo bot.
  const [demoBot, setDemoBot] = useState<string | null | undefined>(undefined);
  const [overlay, setOverlay] = useState(false);

  useEffect(() => {
    demoApi.get().then(
      (d) => setDemoBot(d.enabled ? d.botId : null),
      () => setDemoBot(null),
    );
  }, []);
  useDemoWidget(demoBot ?? null);

  const watch = demoBot ? () => setOverlay(true) : null;
  return (
    <Box mih="100vh" bg="white" style={{ overflowX: 'clip' }}>
      <LandingNav />
      <main>
        <Hero onWatchDemo={watch} />
        <LiveDemo botId={demoBot} />
        <Features />
        <MobileApp />
        <HowItWorks />
        <Testimonials />
        <Pricing />
      </main>
      <LandingFooter />
      {demoBot && <DemoOverlay botId={demoBot} opened={overlay} onClose={() => setOverlay(false)} />}
    </Box>
  );
}
