//! One module per subcommand. `run`, `profile` and `replace` work alone; `repo`, `trigger`,
//! `status`, `suite` and `hooks` talk to `frugald` through [`crate::client`], and print a short
//! human answer (or JSON with `--json`).

pub mod hooks;
pub mod profile;
pub mod replace;
pub mod repo;
pub mod run;
pub mod status;
pub mod suite;
pub mod trigger;

use frugald::v1;

pub(crate) fn print_json<T: serde::Serialize>(v: &T) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(v)?);
    Ok(())
}

pub(crate) fn cost_text(s: &v1::Suite) -> String {
    match &s.total_cost {
        Some(c) => format!(", cost {:.0} {}", c.value, c.basis),
        None => ", cost not measured".to_string(),
    }
}
