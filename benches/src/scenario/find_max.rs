//! `relay --find-max`: ramps the offered relay rate on one rig until the server falls behind
//! (p99 past the limit, or a message not delivered by the end of the drain, or a failure), then
//! narrows the edge by bisection. The sustained maximum is the delivered rate of the highest
//! step that passed.

use std::time::Duration;

use super::relay::{Outcome, Rig, Step};
use crate::report::Run;
use crate::target::Server;
use crate::{Args, Res};

/// A step passes when its p99 stays at or under this.
pub const P99_LIMIT_MS: f64 = 100.0;
/// A message not delivered this long after the last send is late: the step fails.
const LATE_AFTER: Duration = Duration::from_secs(1);
/// Each passing step offers this much more than the one before.
const GROWTH: f64 = 1.5;
/// Bisection steps between the last pass and the first failure.
const REFINEMENTS: usize = 3;
/// A server that has fallen behind gets this long to work off its backlog between steps.
const SETTLE_MAX: Duration = Duration::from_secs(60);

/// The result of a ramp.
#[derive(Debug, Clone, Default)]
pub struct Found {
    /// Delivered msg/s of the highest passing step (0 when none passed).
    pub max_per_s: f64,
    pub p99_at_max_ms: f64,
    pub cpu_at_max: f64,
    pub rss_at_max_mb: f64,
    /// Offered msg/s of the first failing step (None when the ramp never failed).
    pub first_fail_offered: Option<f64>,
    /// Why the first failing step failed.
    pub fail_reason: Option<String>,
    pub steps: Vec<serde_json::Value>,
}

fn verdict(o: &mut Outcome, target_rate: f64) -> Result<(), String> {
    let p99 = o.p99_ms();
    if o.failures > 0 {
        return Err(format!("{} failures", o.failures));
    }
    if o.duplicated > 0 {
        return Err(format!("{} duplicated", o.duplicated));
    }
    if o.lost > 0 {
        return Err(format!("{} late or lost", o.lost));
    }
    if p99 > P99_LIMIT_MS {
        return Err(format!("p99 {p99:.1} ms"));
    }
    if o.offered_per_s < target_rate * 0.9 {
        return Err(format!("the harness offered only {:.0} of {target_rate:.0} msg/s (client-bound)", o.offered_per_s));
    }
    Ok(())
}

/// Ramps from `start` msg/s with steps of `step_secs`.
pub async fn ramp(server: &Server, rig: &mut Rig, start: f64, step_secs: f64) -> Found {
    let mut found = Found::default();
    let mut id = 1u32;
    let mut rate = start.max(1.0);
    let mut lo: Option<f64> = None;
    let mut hi: Option<f64> = None;
    let mut refinements = 0;
    loop {
        let step = Step { id, total_rate: rate, duration: Duration::from_secs_f64(step_secs), acked: false, drain: LATE_AFTER };
        id += 1;
        let mut o = rig.step(server, &step).await;
        let result = verdict(&mut o, rate);
        let p99 = o.p99_ms();
        println!(
            "  {:<6} offered {:>8.0}/s delivered {:>8.0}/s p99 {:>9.1} ms cpu {:>4.2} (bench {:>4.2}) rss {:>6.0} MB  {}",
            server.target.name(),
            o.offered_per_s,
            o.delivered_per_s,
            p99,
            o.server_cpu_cores,
            o.bench_cpu_cores,
            o.rss_mb_end,
            match &result {
                Ok(()) => "pass".to_string(),
                Err(why) => format!("FAIL: {why}"),
            }
        );
        found.steps.push(serde_json::json!({
            "target_rate": rate, "offered_per_s": o.offered_per_s, "delivered_per_s": o.delivered_per_s,
            "p99_ms": p99, "lost": o.lost, "cpu_cores": o.server_cpu_cores, "bench_cpu_cores": o.bench_cpu_cores, "rss_mb": o.rss_mb_end,
            "pass": result.is_ok(),
        }));
        match result {
            Ok(()) => {
                if o.delivered_per_s > found.max_per_s {
                    found.max_per_s = o.delivered_per_s;
                    found.p99_at_max_ms = p99;
                    found.cpu_at_max = o.server_cpu_cores;
                    found.rss_at_max_mb = o.rss_mb_end;
                }
                lo = Some(rate);
            }
            Err(why) => {
                if found.first_fail_offered.is_none() {
                    found.first_fail_offered = Some(rate);
                    found.fail_reason = Some(why.clone());
                }
                hi = Some(rate);
                if why.contains("client-bound") {
                    break; // the harness, not the server, is the limit: going on measures nothing
                }
            }
        }
        rig.settle(Duration::from_millis(500), SETTLE_MAX).await;
        rate = match (lo, hi) {
            (Some(l), None) => l * GROWTH,
            (None, Some(h)) if h > start / 8.0 => h / 2.0,
            (Some(l), Some(h)) if refinements < REFINEMENTS => {
                refinements += 1;
                (l + h) / 2.0
            }
            _ => break,
        };
    }
    found
}

/// `relay --find-max` on one server.
pub async fn run(server: &Server, args: &Args) -> Res<Run> {
    let mut rig = Rig::open(server, args.sessions).await?;
    let start = args.rate * rig.sessions() as f64;
    let found = ramp(server, &mut rig, start, args.duration_secs).await;
    rig.close();
    let mut run = Run::new(server.target.name());
    run.set("sessions", rig.sessions() as u64);
    run.set("max_sustained_per_s", found.max_per_s.round());
    run.set("p99_at_max_ms", found.p99_at_max_ms);
    run.set("server_cpu_cores_at_max", found.cpu_at_max);
    run.set("server_rss_mb_at_max", found.rss_at_max_mb);
    run.set("first_failing_offered_per_s", found.first_fail_offered.map(f64::round));
    run.set("first_failure", found.fail_reason.clone());
    run.detail("steps", found.steps);
    Ok(run)
}
