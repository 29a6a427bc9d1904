//! `frugal token`: scoped API tokens (`create`, `list`, `revoke`), made and kept by frugald
//! (`/v1/tokens`, which needs the admin token of `daemon.token_file`). Hooks and CI get a
//! `trigger` token, dashboards a `read` one; the admin token stays with the administrators.

use frugal_api::v1;

use super::print_json;
use crate::client::{Conn, TIMEOUT};

#[derive(Debug, clap::Subcommand)]
pub enum TokenCmd {
    /// Make a token and print its secret (shown once: frugald keeps only its hash).
    Create {
        /// What the token may do: read (GET routes), trigger (also queue jobs and start
        /// replacements: what hooks and CI need) or admin (also register and remove
        /// repositories, accept changes, manage tokens).
        #[arg(long, value_parser = ["read", "trigger", "admin"])]
        scope: String,
        /// Who or what holds it, e.g. `hooks` or `ci`.
        #[arg(long)]
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// The tokens made with `create` (ids, names, scopes; never secrets).
    List {
        #[arg(long)]
        json: bool,
    },
    /// Revoke a token by id: requests presenting it are refused from now on.
    Revoke {
        /// The id `frugal token list` shows.
        id: u64,
    },
}

pub fn run(conn: &Conn, cmd: TokenCmd) -> anyhow::Result<()> {
    let client = conn.client(TIMEOUT)?;
    match cmd {
        TokenCmd::Create { scope, name, json } => {
            let req = v1::CreateToken { name, scope };
            let t: v1::TokenCreated = client.post("/v1/tokens", &req)?;
            if json {
                return print_json(&t);
            }
            eprintln!(
                "token {} ({}, scope {}): store it now, it is not shown again",
                t.info.id, t.info.name, t.info.scope
            );
            println!("{}", t.token);
        }
        TokenCmd::List { json } => {
            let tokens: Vec<v1::Token> = client.get("/v1/tokens")?;
            if json {
                return print_json(&tokens);
            }
            if tokens.is_empty() {
                println!("no tokens besides the admin token of daemon.token_file");
            }
            for t in &tokens {
                println!("{:>6}  {:<8} {}", t.id, t.scope, t.name);
            }
        }
        TokenCmd::Revoke { id } => {
            client.delete(&format!("/v1/tokens/{id}"))?;
            println!("token {id} revoked");
        }
    }
    Ok(())
}
