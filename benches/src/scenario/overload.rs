//! `overload`: offers a multiple (`--factor`, 5 by default) of Parley's measured sustained
//! maximum for `--duration` seconds, every message with an ack. Reports delivered/s against that
//! peak, the refusals (error acks), RSS over time, and acknowledged messages that were never
//! delivered (there must be none). The peak is `--max N`, or found first with the `--find-max`
//! ramp on the Parley server of this run.

use std::time::Duration;

use super::find_max;
use super::relay::{Rig, Step};
use crate::report::Run;
use crate::target::{Server, Target};
use crate::{Args, Res};

/// What later targets of the run need from the first.
#[derive(Debug, Default)]
pub struct Shared {
    /// Parley's sustained maximum, msg/s.
    pub peak: Option<f64>,
}

pub async fn run(server: &Server, args: &Args, shared: &mut Shared) -> Res<Run> {
    let mut rig = Rig::open(server, args.sessions).await?;
    let mut run = Run::new(server.target.name());
    if shared.peak.is_none() {
        shared.peak = args.max_rate;
    }
    if shared.peak.is_none() {
        if server.target != Target::Parley {
            return Err("overload needs --max N or Parley first in the run (it measures Parley's maximum)".into());
        }
        println!("finding Parley's sustained maximum first (steps of 5 s)");
        let found = find_max::ramp(server, &mut rig, 1000.0, 5.0).await;
        if found.max_per_s <= 0.0 {
            return Err("no relay rate passed, so there is no maximum to overload".into());
        }
        shared.peak = Some(found.max_per_s);
        rig.settle(Duration::from_secs(1), Duration::from_secs(60)).await;
    }
    let peak = shared.peak.unwrap_or_default();
    let offered = peak * args.factor;
    println!("{}: offering {offered:.0} msg/s ({}x the peak of {peak:.0}) for {} s", server.target.name(), args.factor, args.duration_secs);
    let step = Step { id: 1000, total_rate: offered, duration: Duration::from_secs_f64(args.duration_secs), acked: true, drain: Duration::from_secs(30) };
    let mut o = rig.step(server, &step).await;
    rig.close();

    run.set("sessions", rig.sessions() as u64);
    run.set("peak_per_s", peak.round());
    run.set("target_offered_per_s", offered.round());
    run.set("share_of_peak_pct", (100.0 * o.delivered_per_s / peak.max(1e-9)).round());
    if let Some(why) = o.first_refusal.take() {
        run.detail("first_refusal", why);
    }
    run.detail("rss_mb_series", o.rss_series.iter().map(|(t, mb)| serde_json::json!([t.round(), mb.round()])).collect::<Vec<_>>());
    o.write(&mut run, "");
    Ok(run)
}
