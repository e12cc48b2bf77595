//! parley-bench: the load-testing harness (scenarios arrive with the bench issue).

fn main() {
    eprintln!("parley-bench: no scenarios yet; see the load-testing issue");
    std::process::exit(2);
}
