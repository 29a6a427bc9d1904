//! Fuzzing the harness wire format (`wire.rs`): any bytes, as a frame stream or as one frame's
//! body, decode to a value or an error, never a panic or an allocation the bytes cannot back;
//! every request and outcome the engine or the harness can encode decodes back to itself. A
//! smoke in `cargo test`; `FRUGAL_FUZZ_SECS=600` for a long run (`frugal_testkit::fuzz`).

use frugal_probe::wire::{Dec, Enc, Outcome, Request, Status, Stmt, Value, read_frame};
use frugal_testkit::fuzz::fuzz;
use proptest::prelude::*;

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::None),
        any::<i128>().prop_map(Value::Int),
        any::<f64>().prop_map(Value::Float),
        any::<bool>().prop_map(Value::Bool),
        any::<char>().prop_map(Value::Char),
        any::<String>().prop_map(Value::Str),
    ]
}

fn request() -> impl Strategy<Value = Request> {
    let stmt = (
        any::<u32>(),
        proptest::collection::vec(any::<u32>(), 0..4),
        value(),
    )
        .prop_map(|(op, args, value)| Stmt { op, args, value });
    prop_oneof![
        (
            any::<i64>(),
            any::<u32>(),
            any::<u64>(),
            any::<bool>(),
            any::<u32>()
        )
            .prop_map(
                |(fuel, depth, heap_bytes, observe, mutant)| Request::Config {
                    fuel,
                    depth,
                    heap_bytes,
                    observe,
                    mutant,
                }
            ),
        proptest::collection::vec(stmt, 0..6).prop_map(Request::Run),
        Just(Request::Shutdown),
    ]
}

fn outcome() -> impl Strategy<Value = Outcome> {
    let status = proptest::sample::select(vec![
        Status::Completed,
        Status::Panicked,
        Status::OutOfFuel,
        Status::TooDeep,
        Status::Invalid,
    ]);
    let pairs = || proptest::collection::vec((any::<u32>(), any::<u32>()), 0..4);
    (
        (status, any::<u32>(), any::<String>(), any::<String>()),
        (
            proptest::collection::vec(proptest::option::of(any::<String>()), 0..4),
            proptest::collection::vec(
                (any::<u32>(), any::<u32>(), any::<u8>(), any::<String>()),
                0..3,
            ),
        ),
        proptest::collection::vec((any::<u32>(), any::<f64>()), 0..4),
        (pairs(), pairs()),
        (any::<u64>(), any::<u64>(), any::<u64>()),
        proptest::collection::vec(any::<String>(), 0..3),
    )
        .prop_map(
            |(
                (status, stopped_at, message, location),
                (summaries, observed),
                goals,
                (calls, loops),
                n,
                seen,
            )| {
                Outcome {
                    status,
                    stopped_at,
                    message,
                    location,
                    summaries,
                    observed,
                    goals,
                    calls,
                    loops,
                    statements: n.0,
                    allocations: n.1,
                    alloc_bytes: n.2,
                    seen,
                }
            },
        )
}

/// Every frame of a byte stream, decoded both ways.
fn decode_stream(bytes: &[u8]) {
    let mut r = bytes;
    let mut buf = Vec::new();
    while let Ok(true) = read_frame(&mut r, &mut buf) {
        let _ = Dec::new(&buf).request();
        let _ = Dec::new(&buf).outcome();
    }
}

fn encode(f: impl FnOnce(&mut Enc)) -> Vec<u8> {
    let mut e = Enc::default();
    f(&mut e);
    e.buf
}

/// The body of the first frame of `bytes`.
fn body(bytes: &[u8]) -> Vec<u8> {
    let mut buf = Vec::new();
    assert!(read_frame(&mut &bytes[..], &mut buf).unwrap());
    buf
}

#[test]
fn arbitrary_bytes_never_panic_the_decoders() {
    fuzz(
        "wire bytes",
        proptest::collection::vec(any::<u8>(), 0..512),
        |bytes| {
            let _ = Dec::new(&bytes).request();
            let _ = Dec::new(&bytes).outcome();
            decode_stream(&bytes);
            Ok(())
        },
    );
}

/// Real frames with one byte changed and cut short: the decoders' deeper paths.
#[test]
fn corrupted_real_frames_never_panic_the_decoders() {
    let frame = (
        request(),
        outcome(),
        any::<usize>(),
        any::<u8>(),
        any::<usize>(),
    );
    fuzz(
        "wire corrupted frames",
        frame,
        |(req, out, at, byte, cut)| {
            for mut bytes in [encode(|e| e.request(&req)), encode(|e| e.outcome(&out))] {
                let i = at % bytes.len();
                bytes[i] = byte;
                bytes.truncate(cut % (bytes.len() + 1));
                decode_stream(&bytes);
                let _ = Dec::new(bytes.get(4..).unwrap_or(&[])).request();
                let _ = Dec::new(bytes.get(4..).unwrap_or(&[])).outcome();
            }
            Ok(())
        },
    );
}

#[test]
fn every_encodable_message_decodes_to_itself() {
    // Compared as bytes re-encoded: a NaN is not equal to itself, its encoding is.
    fuzz("wire round trip", (request(), outcome()), |(req, out)| {
        let bytes = encode(|e| e.request(&req));
        let back = Dec::new(&body(&bytes)).request().unwrap();
        prop_assert_eq!(encode(|e| e.request(&back)), bytes);
        let bytes = encode(|e| e.outcome(&out));
        let back = Dec::new(&body(&bytes)).outcome().unwrap();
        prop_assert_eq!(encode(|e| e.outcome(&back)), bytes);
        Ok(())
    });
}
