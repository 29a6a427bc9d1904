//! An example crate shaped like the crates published today: APIs generic over conversion
//! traits (`V: Into<u64>`), whose values frugal's harness drives with a concrete stand-in
//! and its emitted tests must write with that same type. Each module holds one API shape
//! that frugal must be able to call.

pub mod units;
pub mod words;
pub mod tables;
pub mod ext;
pub mod maps;
pub mod callbacks;
pub mod streams;
pub mod config;
pub mod pair;
pub mod files;
pub mod ring;
pub mod counted;
pub mod blocks;
pub mod args;
pub mod escape;
pub mod home;
pub mod optional;
pub mod fields;
pub mod slots;
pub mod meter;
