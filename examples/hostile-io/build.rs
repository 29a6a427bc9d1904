//! The build script of `hostile-io`: tries to reach a TCP port on the host
//! ([`BUILD_PORT`]) and to leave a file in `$HOME`, ignoring every failure so that the build
//! succeeds either way. Under frugal's sandbox the connection is refused and `$HOME` is a
//! private directory. Never build this crate outside frugal's sandbox.

use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// The loopback port the script aims at; the end-to-end test builds a copy with this literal
/// replaced by the port its listener got.
const BUILD_PORT: u16 = 47_212;

/// The file the script tries to leave in `$HOME`.
const HOME_MARK: &str = "hostile-build-was-here";

fn main() {
    let addr = SocketAddr::from(([127, 0, 0, 1], BUILD_PORT));
    let _ = TcpStream::connect_timeout(&addr, Duration::from_millis(500));
    if let Some(home) = std::env::var_os("HOME") {
        let _ = std::fs::write(std::path::Path::new(&home).join(HOME_MARK), "hostile build.rs");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
