//! The executor emitted tests run `async fn` calls with: a `block_on` that polls the future
//! with a waker that does nothing, written once into a file (and into each module section) that
//! has a test calling one. It needs no dependency, so a suite builds wherever the crate does;
//! the search kept only calls that completed under the harness's equivalent
//! (`frugal_probe::harness::block_on`), so these futures complete here too.

use crate::harness::op_expr::BLOCK_ON;

/// The helper's text at column 0, preceded by an empty line.
pub(crate) fn helper() -> String {
    format!(
        "\n/// Runs a future that needs no async runtime to completion (frugal's minimal executor).\n\
         #[allow(dead_code)]\n\
         fn {BLOCK_ON}<F: std::future::Future>(future: F) -> F::Output {{\n    \
             let mut future = std::pin::pin!(future);\n    \
             let mut cx = std::task::Context::from_waker(std::task::Waker::noop());\n    \
             loop {{\n        \
                 if let std::task::Poll::Ready(out) = future.as_mut().poll(&mut cx) {{\n            \
                     return out;\n        \
                 }}\n        \
                 std::thread::yield_now();\n    \
             }}\n\
         }}\n"
    )
}
