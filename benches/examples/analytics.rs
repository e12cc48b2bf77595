//! How long the analytics call's database work takes over a seeded bot: by default 1,000,000
//! messages (100,000 conversations) spread over 90 days, on a fresh SQLite file or, with
//! `--postgres`, a fresh PostgreSQL database (`PARLEY_TEST_PG_URL`, dropped afterwards).
//!
//! ```sh
//! cargo build --release --workspace --all-targets --examples
//! target/release/examples/analytics [--messages 1000000] [--runs 20] [--postgres]
//! ```
//!
//! Each period (24h, 7d, 30d, 90d) is queried once to warm up, then `--runs` times; the table
//! gives the median, 95th percentile and worst of what `GET /api/bots/{id}/analytics` asks of
//! the database (`Store::analytics` and `Store::top_unanswered`).

use std::time::{Duration, Instant};

use parley_http::chart_range::{self, ChartPeriod, ViewerZone};
use parley_store::bots::{NewBot, WidgetConfig};
use parley_store::testing::TestDb;
use parley_store::users::NewUser;
use parley_store::Backend;

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len().max(1));
    sorted.get(rank - 1).copied().unwrap_or_default()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let messages: i64 = arg(&args, "--messages").map(|v| v.parse()).transpose()?.unwrap_or(1_000_000);
    let runs: usize = arg(&args, "--runs").map(|v| v.parse()).transpose()?.unwrap_or(20);
    let backend = if args.iter().any(|a| a == "--postgres") { Backend::Postgres } else { Backend::Sqlite };

    let db = TestDb::new(backend).await?;
    let store = db.open().await?;
    let owner = store
        .create_user(NewUser { email: "bench@parley.test".into(), name: "Bench".into(), password_hash: None, profile_picture: None })
        .await?;
    let bot = store
        .create_bot(NewBot {
            owner_id: owner.id.clone(),
            name: "Seeded".into(),
            description: String::new(),
            website_url: None,
            icon: None,
            widget: WidgetConfig::default(),
            initial_sources: Vec::new(),
        })
        .await?;
    let now = parley_store::time::now();
    let seeding = Instant::now();
    store.seed_analytics(&bot.id, messages, 90, now).await?;
    println!("{backend:?}: seeded {messages} messages over 90 days in {:.1} s", seeding.elapsed().as_secs_f64());

    let tz = ViewerZone::parse(Some("Europe/Paris"))?;
    println!("| period | buckets | messages counted | median | p95 | max |");
    println!("|---|---|---|---|---|---|");
    for period in [ChartPeriod::Day, ChartPeriod::Week, ChartPeriod::Month, ChartPeriod::Quarter] {
        let buckets = chart_range::buckets(period, tz, now);
        let mut times = Vec::with_capacity(runs);
        let mut counted = 0;
        for run in 0..=runs {
            let started = Instant::now();
            let data = store.analytics(&bot.id, &buckets).await?;
            store.top_unanswered(&bot.id, buckets.from, buckets.to(), 10).await?;
            if run > 0 {
                times.push(started.elapsed());
            }
            counted = data.total.visitor_messages + data.total.bot_messages + data.total.agent_messages;
        }
        times.sort();
        let ms = |d: Duration| format!("{:.1} ms", d.as_secs_f64() * 1000.0);
        println!(
            "| {} | {} | {counted} | {} | {} | {} |",
            period.as_str(),
            buckets.count,
            ms(percentile(&times, 0.5)),
            ms(percentile(&times, 0.95)),
            ms(times.last().copied().unwrap_or_default())
        );
    }

    drop(store);
    db.drop_database().await?;
    Ok(())
}
