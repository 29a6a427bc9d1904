//! The address file: where a running frugald listens, for clients that did not configure it.
//!
//! frugald writes it in its state dir once every listener is bound (so a client that read it
//! finds the socket there), as one `host:port` line, and removes it at shutdown. The address is
//! the one really bound, so it is right even when the configured port is 0.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// Name of the address file in the state dir (`daemon.state_dir`).
pub const ADDR_FILE: &str = "frugald.addr";

/// The address file of the daemon whose state dir is `state_dir`.
pub fn path(state_dir: &Path) -> PathBuf {
    state_dir.join(ADDR_FILE)
}

/// The file's contents for `addr`.
pub fn format(addr: SocketAddr) -> String {
    format!("{addr}\n")
}

/// Reads the address a daemon wrote into `state_dir`; `None` when there is no file or it does
/// not hold an address (a daemon stopped while writing it, or not frugald's file).
pub fn read(state_dir: &Path) -> Option<SocketAddr> {
    std::fs::read_to_string(path(state_dir))
        .ok()
        .and_then(|s| s.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_written_address_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path()), None);
        let addr: SocketAddr = "127.0.0.1:4567".parse().unwrap();
        std::fs::write(path(dir.path()), format(addr)).unwrap();
        assert_eq!(read(dir.path()), Some(addr));
        std::fs::write(path(dir.path()), "not an address\n").unwrap();
        assert_eq!(read(dir.path()), None);
    }
}
