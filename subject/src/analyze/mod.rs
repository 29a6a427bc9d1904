//! API analysis: parse a library crate with `syn` and find what an integration test can call.
//!
//! The result is an [`ApiModel`](crate::model::ApiModel): public callables with parameter
//! types lowered to [`Ty`](crate::model::Ty) and generics instantiated, public types with
//! their shapes and traits, a constant pool, and every public function the harness cannot
//! drive yet with a short reason. All of it is syntactic: no rustc, no cargo, no type
//! inference, so it runs in milliseconds and on crates that do not build. The crate's own
//! `macro_rules!` invocations are expanded (`macro_expand.rs`) and their items read as written;
//! proc macros' items are invisible. An invocation that does not expand still gives the trait
//! impls for primitives it names (`macros.rs`, functions as the trait declares them) and the
//! array impls over its sizes (`arrays.rs`).

mod array_lengths;
mod arrays;
pub(crate) mod attrs;
mod borrows;
mod bounds;
mod callables;
pub(crate) mod cargo_toml;
mod closure_impls;
mod constants;
mod consume;
mod error;
mod generics;
mod index;
mod macro_expand;
mod macros;
pub(crate) mod options;
mod pipeline;
mod produced;
mod public;
mod range_impls;
mod signature_types;
mod typedefs;
mod types;
mod unsized_types;
pub(crate) mod walk;
mod wrapped_fns;

pub use error::{AnalyzeError, AnalyzeWarning};
pub use options::AnalyzeOptions;
pub use pipeline::{Analysis, analyze, analyze_detailed};
pub use types::ty_display;
