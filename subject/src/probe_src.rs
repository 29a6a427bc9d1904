//! The probe runtime's source, embedded so that an installed `frugal` can write it next to the
//! instrumented copy of a crate and build it as a path dependency.

use std::io;
use std::path::Path;

const FILES: &[(&str, &str)] = &[
    ("src/lib.rs", include_str!("../../probe/src/lib.rs")),
    ("src/alloc.rs", include_str!("../../probe/src/alloc.rs")),
    (
        "src/distance.rs",
        include_str!("../../probe/src/distance.rs"),
    ),
    ("src/dump.rs", include_str!("../../probe/src/dump.rs")),
    ("src/flags.rs", include_str!("../../probe/src/flags.rs")),
    ("src/harness.rs", include_str!("../../probe/src/harness.rs")),
    ("src/mutants.rs", include_str!("../../probe/src/mutants.rs")),
    ("src/observe.rs", include_str!("../../probe/src/observe.rs")),
    ("src/seen.rs", include_str!("../../probe/src/seen.rs")),
    ("src/tables.rs", include_str!("../../probe/src/tables.rs")),
    ("src/wire.rs", include_str!("../../probe/src/wire.rs")),
];

/// The probe runtime's coverage variables and end-of-dump line (see `frugal_probe::dump`), for
/// crates that set them on the instrumented copy's processes but do not depend on the probe.
pub use frugal_probe::dump::{
    END_MARK as COVERAGE_END_MARK, OUT_ENV as COVERAGE_OUT_ENV, SIZES_ENV as COVERAGE_SIZES_ENV,
};

/// Package name the instrumented crate depends on (`::frugal_probe::...` in probes).
pub const PACKAGE: &str = "frugal-probe";

/// Writes a standalone copy of the probe crate into `dir` (created if missing). Its empty
/// `[workspace]` stops cargo's search for a workspace above it: the dirs above a work dir are
/// none of the build's business, and the sandbox does not let it read them.
pub fn write_probe_crate(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir.join("src"))?;
    let manifest = format!(
        "[package]\nname = \"{PACKAGE}\"\nversion = \"{}\"\nedition = \"2024\"\n\n[lib]\npath = \"src/lib.rs\"\n\n[workspace]\n",
        env!("CARGO_PKG_VERSION")
    );
    write_if_changed(&dir.join("Cargo.toml"), &manifest)?;
    for (rel, text) in FILES {
        write_if_changed(&dir.join(rel), text)?;
    }
    Ok(())
}

/// Keeps mtimes stable so cargo does not rebuild an unchanged probe crate.
fn write_if_changed(path: &Path, text: &str) -> io::Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    std::fs::write(path, text)
}
