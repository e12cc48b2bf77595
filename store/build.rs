//! Rebuilds the store when a migration is added, renamed or edited: `embed_migrations!` reads
//! the migration folders at compile time, and cargo does not watch a folder for new entries.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
