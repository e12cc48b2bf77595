//! The `parley` binary. `parley serve` runs the product; settings come from
//! config/default.toml, an optional PARLEY_CONFIG file and PARLEY_* variables.

use std::process::ExitCode;

use parley_config::Settings;
use parley_http::app::Application;
use parley_http::cli;

// Per-frame buffers are allocated and freed on different threads (actix workers, the
// writer, the blocking pool). glibc malloc keeps per-thread arenas that fragment under
// that pattern and hand little back; mimalloc is faster for it and returns memory.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const USAGE: &str = "usage: parley serve | parley plans set EMAIL free|pro|enterprise [--until YYYY-MM-DD] | parley backup DIR\n\nRuns Parley on PARLEY_ADDR (default 127.0.0.1:8080), \
keeping data in PARLEY_DATA_DIR (default ./data; SQLite unless PARLEY_DATABASE_URL=postgres://...).\n\
Every setting is listed in config/default.toml. `plans set` puts an account on a plan \
without payments (through that day with --until, then Free), in the database the same settings name. \
`backup` copies the data directory's database, message journal, uploads and secret into DIR while Parley runs.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("serve") => {}
        Some("plans") => return plans(&args[1..]),
        Some("backup") => return backup(&args[1..]),
        Some("-h") | Some("--help") | Some("help") => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    }
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("PARLEY_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    match actix_web::rt::System::new().block_on(serve()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e}");
            eprintln!("parley: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `parley plans …`: prints what it did, or why not (exit 2 for bad words, 1 for a failure).
fn plans(args: &[String]) -> ExitCode {
    let order = match cli::parse_plans(args, parley_store::time::now()) {
        Ok(order) => order,
        Err(why) => {
            eprintln!("{why}");
            return ExitCode::from(2);
        }
    };
    let run = async {
        let settings = settings()?;
        // Beside a running server: that one keeps the message journal (see `Store::open_alongside`).
        let store = parley_store::Store::open_alongside(&settings).await.map_err(|e| e.to_string())?;
        cli::set_plan(&store, &order).await
    };
    report(actix_web::rt::System::new().block_on(run))
}

/// `parley backup DIR`: prints what it copied, or why not (exit 2 for bad words, 1 for a failure).
fn backup(args: &[String]) -> ExitCode {
    let dest = match cli::parse_backup(args) {
        Ok(dest) => dest,
        Err(why) => {
            eprintln!("{why}");
            return ExitCode::from(2);
        }
    };
    report(settings().and_then(|settings| cli::backup(&settings, &dest)))
}

/// The settings, with paths resolved against the working directory, for an admin subcommand.
fn settings() -> Result<Settings, String> {
    let mut settings = Settings::load().map_err(|e| e.to_string())?;
    let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
    settings.resolve_paths(&cwd);
    Ok(settings)
}

/// An admin subcommand's outcome: its line on stdout, or why not on stderr (exit 1).
fn report(done: Result<String, String>) -> ExitCode {
    match done {
        Ok(done) => {
            println!("{done}");
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("parley: {why}");
            ExitCode::FAILURE
        }
    }
}

async fn serve() -> Result<(), Box<dyn std::error::Error>> {
    let mut settings = Settings::load()?;
    let cwd = std::env::current_dir()?;
    settings.resolve_paths(&cwd);
    let backend = if settings.uses_postgres() { "PostgreSQL" } else { "SQLite" };
    let app = Application::build(settings.clone()).await?;
    let host = settings.addr.rsplit_once(':').map(|(h, _)| h).unwrap_or("127.0.0.1");
    // On stdout, with the port actually bound (PARLEY_ADDR may ask for port 0): tests read it.
    println!("Parley listening on http://{host}:{} ({backend}, data in {})", app.port(), settings.data_dir.display());
    app.run_until_stopped().await?;
    Ok(())
}
