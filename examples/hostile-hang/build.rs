//! A build script that never finishes: frugal must give up on the build after its build
//! timeout (`FRUGAL_BUILD_TIMEOUT_SECS`) and kill it. Never build this crate outside frugal's
//! sandbox unless you mean to wait for ever.

fn main() {
    loop {
        std::thread::sleep(std::time::Duration::from_secs(3600));
    }
}
