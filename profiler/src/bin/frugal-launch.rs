//! `frugal-launch`: the launcher as a binary of its own (`frugal-launch -- PROGRAM [ARGS...]`).
//! The protocol and the reason it exists are in `src/launcher.rs`; `frugal` and `frugald` serve
//! the same launcher themselves when this binary is not installed beside them.

fn main() {
    std::process::exit(frugal_profiler::launcher::main(std::env::args_os().skip(1)));
}
