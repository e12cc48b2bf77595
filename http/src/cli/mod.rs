//! The `parley` command's admin subcommands (besides `serve`): each parses its own words and
//! returns the line to print, so the binary only reports.

mod backup;
mod plans;

pub use backup::{backup, parse_backup, BACKUP_USAGE};
pub use plans::{parse_plans, set_plan, SetPlan, PLANS_USAGE};
