//! Prints the house's two scans of `src/` (issue 42): the graph of top-level modules with its
//! circles, and the functions over 70 lines. `scripts/house` runs it; the fast tier's
//! `tests/cli/house.rs` runs the same scan (`tests/support/house.rs`) and fails on a circle or
//! on more long functions than the number written there.
//!
//! usage: cargo run -q --example house [-- [--why] ROOT]   (ROOT: the dir holding src/, default
//! `.`; --why: the line that makes each arrow)

#[allow(dead_code)]
#[path = "../tests/support/house.rs"]
mod house;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let why = args.iter().any(|a| a == "--why");
    let root = args.iter().find(|a| *a != "--why").map_or(".", String::as_str);
    let scan = house::scan(std::path::Path::new(root));
    print!("{}", scan.render(why));
    if !scan.circles.is_empty() {
        std::process::exit(1);
    }
}
