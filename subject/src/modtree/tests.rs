use std::collections::BTreeSet;
use std::path::Path;

use crate::analyze::attrs::CfgEval;
use crate::analyze::options::EnabledFeatures;
use crate::instrument::Options;

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// Files of the API model.
fn analysed(crate_dir: &Path) -> BTreeSet<String> {
    let cfg = CfgEval::new(EnabledFeatures::Set(BTreeSet::new()));
    let tree =
        crate::analyze::walk::walk(crate_dir, Path::new("src/lib.rs"), &cfg).expect("root parses");
    tree.modules.into_iter().map(|m| m.file).collect()
}

/// Files instrumentation numbers goals in (every fixture file has a fn), and why it skipped.
fn instrumented(crate_dir: &Path) -> (BTreeSet<String>, Vec<String>) {
    let walked =
        crate::instrument::walk::walk(crate_dir, Path::new("src/lib.rs"), &Options::default());
    let files = walked.manifest.functions.iter().map(|f| f.file.clone());
    let reasons = walked.manifest.skipped.iter().map(|s| s.reason.clone());
    (files.collect(), reasons.collect())
}

#[test]
fn analysis_and_instrumentation_see_the_same_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let crate_dir = dir.path().join("ws/krate");
    write(dir.path(), "outside.rs", "pub fn escaped() {}\n");
    write(
        &crate_dir,
        "Cargo.toml",
        "[package]\nname = \"krate\"\nversion = \"0.1.0\"\n",
    );
    write(
        &crate_dir,
        "src/lib.rs",
        "pub mod a;\n#[cfg(any())]\npub mod gone;\n#[path = \"custom/place.rs\"]\npub mod b;\n\
         #[path = \"../../outside.rs\"]\npub mod escape;\npub fn root() {}\n\
         #[cfg(feature = \"off\")]\nmod inline_gone {\n    mod deeper;\n}\n",
    );
    write(&crate_dir, "src/a.rs", "pub mod inner;\npub fn fa() {}\n");
    write(&crate_dir, "src/a/inner.rs", "pub fn fi() {}\n");
    write(&crate_dir, "src/gone.rs", "pub fn fg() {}\n");
    write(&crate_dir, "src/inline_gone/deeper.rs", "pub fn fd() {}\n");
    write(&crate_dir, "src/custom/place.rs", "pub fn fb() {}\n");

    let want: BTreeSet<String> = [
        "src/lib.rs",
        "src/a.rs",
        "src/a/inner.rs",
        "src/custom/place.rs",
    ]
    .map(String::from)
    .into();
    let (files, reasons) = instrumented(&crate_dir);
    assert_eq!(analysed(&crate_dir), want);
    assert_eq!(files, want);
    assert!(
        reasons.iter().any(|r| r.contains("outside the crate")),
        "{reasons:?}"
    );
}

#[cfg(unix)]
#[test]
fn a_source_dir_linked_outside_the_crate_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let crate_dir = dir.path().join("krate");
    write(dir.path(), "elsewhere/lib.rs", "pub fn f() {}\n");
    write(
        &crate_dir,
        "Cargo.toml",
        "[package]\nname = \"krate\"\nversion = \"0.1.0\"\n",
    );
    std::os::unix::fs::symlink(dir.path().join("elsewhere"), crate_dir.join("src")).expect("link");

    let (files, reasons) = instrumented(&crate_dir);
    assert!(files.is_empty(), "{files:?}");
    assert!(
        reasons.iter().any(|r| r.contains("outside the crate")),
        "{reasons:?}"
    );
    let cfg = CfgEval::new(EnabledFeatures::All);
    assert!(crate::analyze::walk::walk(&crate_dir, Path::new("src/lib.rs"), &cfg).is_err());
}
