//! The test model of an emitted suite: its tests as statements over operations named by stable
//! keys instead of registry indices, written as JSON next to the suite
//! (`frugal_generated.model.json`). It owns the keys, the file format and resolution: mapping a
//! stored model onto a new build's registry, so the next run can re-execute the tests that
//! still apply and seed its search with them, without parsing Rust.
//!
//! Decision: an operation's key is its kind, its name (a callable's path), its parameters as
//! pool types with their passing mode, and its result type: `call numeric::gcd(u64, u64) ->
//! u64`. A changed signature is a different key, so tests calling it are dropped with a reason
//! rather than executed against a different function; a change the pool does not see (`&str`
//! to `&String`) keeps the key.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use frugal_search::{Pass, Stmt, TestCase, Value};
use serde::{Deserialize, Serialize};

use crate::harness::registry::{Op, OpCode, Registry};
use crate::model::{ApiModel, Ty};

/// The file format's version; a model of another version is refused.
pub const MODEL_VERSION: u32 = 1;

/// The model's file name in a run's out dir, next to `frugal_generated.rs`.
pub const MODEL_FILE: &str = "frugal_generated.model.json";

/// The tests of one emitted suite, by stable operation keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteModel {
    /// The file format's version: [`MODEL_VERSION`] when written.
    pub version: u32,
    /// The library's name as used in paths (`ApiModel::crate_name`).
    pub krate: String,
    /// The suite's tests, in the emitted file's order.
    pub tests: Vec<ModelTest>,
}

/// One test of the suite, named as in the emitted file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelTest {
    /// The test function's name in the emitted file.
    pub name: String,
    /// Its statements, in order; each one's result is referred to by its index.
    pub stmts: Vec<ModelStmt>,
}

/// One statement: the operation's key, earlier statements as arguments, the literal if any.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelStmt {
    /// The operation's stable key (`call numeric::gcd(u64, u64) -> u64`).
    pub op: String,
    /// The arguments: indices of earlier statements of the same test.
    pub args: Vec<u32>,
    /// The literal the statement produces, for a value operation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<ModelValue>,
}

/// A literal. Floats are text (`"NaN"`, `"-inf"`, `"0.1"`): JSON numbers cannot hold every
/// `f64`, and the text reads back to the same bits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelValue {
    /// An integer of any width, as `i128`.
    Int(i128),
    /// A float as text that reads back to the same bits.
    Float(String),
    /// A `bool`.
    Bool(bool),
    /// A `char`.
    Char(char),
    /// A string.
    Str(String),
}

/// A model resolved against a new build.
#[derive(Debug, Clone, Default)]
pub struct Resolved {
    /// Tests valid for the new schema, by name, in the model's order.
    pub tests: Vec<(String, TestCase)>,
    /// Tests that no longer apply: name and why.
    pub dropped: Vec<(String, String)>,
}

/// Why a model could not be read or written. The cause is part of the message and not a
/// `source`, so `{:#}` does not print it twice.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// The model file could not be read.
    #[error("cannot read the test model {path}: {error}")]
    Read {
        /// The model file.
        path: PathBuf,
        /// The I/O error.
        error: std::io::Error,
    },
    /// The model file could not be written.
    #[error("cannot write the test model {path}: {error}")]
    Write {
        /// The model file.
        path: PathBuf,
        /// The I/O error.
        error: std::io::Error,
    },
    /// The text is not a test model's JSON.
    #[error("{origin} is not a frugal test model: {error}")]
    Json {
        /// Where the text came from (a path, or a description), for the message.
        origin: String,
        /// The JSON error.
        error: serde_json::Error,
    },
    /// A test model of another format version than [`MODEL_VERSION`].
    #[error(
        "{origin} is a test model of version {found}; this frugal reads version {MODEL_VERSION}"
    )]
    Version {
        /// Where the text came from, for the message.
        origin: String,
        /// The version the model says it has.
        found: u32,
    },
}

impl SuiteModel {
    /// The model of `tests` (name and test case over `registry`'s operation ids).
    pub fn from_tests(registry: &Registry, api: &ApiModel, tests: &[(String, TestCase)]) -> Self {
        let keys = op_keys(registry, api);
        let tests = tests
            .iter()
            .map(|(name, t)| ModelTest {
                name: name.clone(),
                stmts: t
                    .stmts
                    .iter()
                    .map(|s| ModelStmt {
                        op: keys[s.op as usize].clone(),
                        args: s.args.clone(),
                        value: s.value.as_ref().map(ModelValue::from),
                    })
                    .collect(),
            })
            .collect();
        SuiteModel {
            version: MODEL_VERSION,
            krate: api.crate_name.clone(),
            tests,
        }
    }

    /// Maps the model onto a new build: each key to the operation of `registry` with that key.
    /// A test naming an operation the registry no longer has (the callable is gone or its
    /// signature changed), or that is not well-formed over the new schema (a type changed
    /// under it: [`TestCase::check`]), is dropped with the reason.
    pub fn resolve(&self, registry: &Registry, api: &ApiModel) -> Resolved {
        let mut out = Resolved::default();
        if self.krate != api.crate_name {
            let why = format!(
                "the model is of crate `{}`, not `{}`",
                self.krate, api.crate_name
            );
            out.dropped = self
                .tests
                .iter()
                .map(|t| (t.name.clone(), why.clone()))
                .collect();
            return out;
        }
        let keys = op_keys(registry, api);
        let ids: BTreeMap<&str, u32> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| (k.as_str(), i as u32))
            .collect();
        let schema = registry.schema(api);
        for t in &self.tests {
            let unknown = unknown_ops(t, &ids);
            let test = match unknown.is_empty() {
                false => Err(unknown
                    .iter()
                    .map(|k| missing(k, &keys))
                    .collect::<Vec<_>>()
                    .join("; ")),
                true => t
                    .stmts
                    .iter()
                    .map(|s| resolve_stmt(s, &ids))
                    .collect::<Result<Vec<Stmt>, String>>()
                    .map(|stmts| TestCase { stmts })
                    .and_then(|tc| match tc.check(&schema) {
                        Ok(()) => Ok(tc),
                        Err(e) => Err(format!("no longer fits the API: {e}")),
                    }),
            };
            match test {
                Ok(tc) => out.tests.push((t.name.clone(), tc)),
                Err(why) => out.dropped.push((t.name.clone(), why)),
            }
        }
        out
    }

    /// Reads a model file, refusing other versions.
    pub fn read(path: &Path) -> Result<Self, ModelError> {
        let text = std::fs::read_to_string(path).map_err(|error| ModelError::Read {
            path: path.to_path_buf(),
            error,
        })?;
        Self::from_json(&text, &path.display().to_string())
    }

    /// Parses a model kept elsewhere (a store), refusing other versions; `origin` names it in
    /// errors.
    pub fn from_json(text: &str, origin: &str) -> Result<Self, ModelError> {
        let json = |error| ModelError::Json {
            origin: origin.to_string(),
            error,
        };
        // The version first, so a future format is refused as such and not as bad JSON.
        #[derive(Deserialize)]
        struct Versioned {
            version: u32,
        }
        let found = serde_json::from_str::<Versioned>(text)
            .map_err(json)?
            .version;
        if found != MODEL_VERSION {
            return Err(ModelError::Version {
                origin: origin.to_string(),
                found,
            });
        }
        serde_json::from_str(text).map_err(json)
    }

    /// Writes the model as pretty JSON.
    pub fn write(&self, path: &Path) -> Result<(), ModelError> {
        let write = |error| ModelError::Write {
            path: path.to_path_buf(),
            error,
        };
        let text = serde_json::to_string_pretty(self).map_err(|e| write(e.into()))?;
        std::fs::write(path, text).map_err(write)
    }
}

/// The distinct keys of a test's operations the new registry lacks: the calls among them if
/// any (the callable that changed says more than the literal type that went with it), else
/// the first.
fn unknown_ops<'t>(t: &'t ModelTest, ids: &BTreeMap<&str, u32>) -> Vec<&'t str> {
    let mut unknown: Vec<&str> = Vec::new();
    for s in &t.stmts {
        if !ids.contains_key(s.op.as_str()) && !unknown.contains(&s.op.as_str()) {
            unknown.push(&s.op);
        }
    }
    let calls: Vec<&str> = unknown
        .iter()
        .copied()
        .filter(|k| k.starts_with("call "))
        .collect();
    match calls.is_empty() {
        true => unknown.into_iter().take(1).collect(),
        false => calls,
    }
}

/// A statement over the new registry's ids; every key is known ([`unknown_ops`]).
fn resolve_stmt(s: &ModelStmt, ids: &BTreeMap<&str, u32>) -> Result<Stmt, String> {
    let op = ids
        .get(s.op.as_str())
        .copied()
        .ok_or_else(|| format!("no operation `{}`", s.op))?;
    let value = s.value.as_ref().map(Value::try_from).transpose()?;
    Ok(Stmt {
        op,
        args: s.args.clone(),
        value,
    })
}

/// Why an operation key is not in the new registry: the name is gone, or it has another
/// signature now.
fn missing(key: &str, keys: &[String]) -> String {
    let name = key_name(key);
    let now: Vec<&str> = keys
        .iter()
        .filter(|k| key_name(k) == name)
        .map(String::as_str)
        .collect();
    if now.is_empty() {
        format!("`{name}` is gone (the model calls `{key}`)")
    } else {
        format!(
            "`{name}` changed its signature: the model calls `{key}`, the crate now has `{}`",
            now.join("`, `")
        )
    }
}

/// The name part of a key: `numeric::gcd` of `call numeric::gcd(u64, u64) -> u64`.
fn key_name(key: &str) -> &str {
    let rest = key.split_once(' ').map_or(key, |(_, r)| r);
    rest.split_once('(').map_or(rest, |(n, _)| n)
}

/// Every operation's key, by registry id. Two operations with the same key (which analysis
/// does not produce today) are told apart by a ` #2`, ` #3`, ... suffix in registry order.
pub fn op_keys(registry: &Registry, api: &ApiModel) -> Vec<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    registry
        .ops
        .iter()
        .map(|op| {
            let key = op_key(op, api);
            let n = seen.entry(key.clone()).or_default();
            *n += 1;
            match *n {
                1 => key,
                n => format!("{key} #{n}"),
            }
        })
        .collect()
}

/// `literal i32`, `call krate::f(&String, u32) -> Option<u8>`, `build Some: Option<i32>(i32) ->
/// Option<i32>`.
fn op_key(op: &Op, api: &ApiModel) -> String {
    let ty = |t: &Ty| crate::harness::render::ty(t, &api.crate_name);
    let kind = match op.code {
        OpCode::Literal(_) => {
            return format!("literal {}", op.ret.as_ref().map_or(String::new(), ty));
        }
        OpCode::Call(_) if op.keyed => "call-keyed",
        OpCode::Call(_) => "call",
        _ => "build",
    };
    let params: Vec<String> = op
        .params
        .iter()
        .map(|(t, pass, _)| {
            let mode = match pass {
                Pass::Move => "",
                Pass::Ref => "&",
                Pass::Mut => "&mut ",
                Pass::Lend => "&'lent ",
                Pass::LendMut => "&'lent mut ",
            };
            format!("{mode}{}", ty(t))
        })
        .collect();
    let ret = op
        .ret_source
        .as_ref()
        .or(op.ret.as_ref())
        .map_or_else(|| "()".to_string(), ty);
    format!("{kind} {}({}) -> {ret}", op.name, params.join(", "))
}

impl From<&Value> for ModelValue {
    fn from(v: &Value) -> Self {
        match v {
            Value::Int(i) => ModelValue::Int(*i),
            // `{:?}` prints the shortest text that parses back to the same value.
            Value::Float(f) => ModelValue::Float(format!("{f:?}")),
            Value::Bool(b) => ModelValue::Bool(*b),
            Value::Char(c) => ModelValue::Char(*c),
            Value::Str(s) => ModelValue::Str(s.clone()),
        }
    }
}

impl TryFrom<&ModelValue> for Value {
    type Error = String;
    fn try_from(v: &ModelValue) -> Result<Self, String> {
        Ok(match v {
            ModelValue::Int(i) => Value::Int(*i),
            ModelValue::Float(f) => Value::Float(
                f.parse()
                    .map_err(|_| format!("float literal `{f}` is not a number"))?,
            ),
            ModelValue::Bool(b) => Value::Bool(*b),
            ModelValue::Char(c) => Value::Char(*c),
            ModelValue::Str(s) => Value::Str(s.clone()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Callable, Param};

    fn prim(p: &str) -> Ty {
        Ty::Prim(p.into())
    }

    fn free(name: &str, params: Vec<Ty>, ret: Option<Ty>) -> Callable {
        Callable {
            params: params
                .into_iter()
                .enumerate()
                .map(|(i, ty)| Param::new(format!("a{i}"), ty))
                .collect(),
            ret,
            ..Callable::free(&format!("calc::{name}"), "src/lib.rs", 1)
        }
    }

    fn api(callables: Vec<Callable>) -> ApiModel {
        ApiModel {
            crate_name: "calc".into(),
            callables,
            ..ApiModel::default()
        }
    }

    /// `double(i32) -> i32`, `shout(&str) -> String`, `half(f64) -> f64`.
    fn before() -> ApiModel {
        api(vec![
            free("double", vec![prim("i32")], Some(prim("i32"))),
            free(
                "shout",
                vec![Ty::Ref {
                    mutable: false,
                    inner: Box::new(Ty::Str),
                }],
                Some(Ty::String),
            ),
            free("half", vec![prim("f64")], Some(prim("f64"))),
        ])
    }

    fn op(reg: &Registry, api: &ApiModel, key: &str) -> u32 {
        let keys = op_keys(reg, api);
        keys.iter()
            .position(|k| k == key)
            .unwrap_or_else(|| panic!("{key} not in {keys:?}")) as u32
    }

    /// One test per callable: a literal, then the call on it.
    fn tests(reg: &Registry, api: &ApiModel) -> Vec<(String, TestCase)> {
        let one = |lit: &str, value: Value, call: &str| TestCase {
            stmts: vec![
                Stmt {
                    op: op(reg, api, lit),
                    args: vec![],
                    value: Some(value),
                },
                Stmt {
                    op: op(reg, api, call),
                    args: vec![0],
                    value: None,
                },
            ],
        };
        vec![
            (
                "test_double".into(),
                one(
                    "literal i32",
                    Value::Int(21),
                    "call calc::double(i32) -> i32",
                ),
            ),
            (
                "test_shout".into(),
                one(
                    "literal String",
                    Value::Str("hi \"there\"".into()),
                    "call calc::shout(&String) -> String",
                ),
            ),
            (
                "test_half".into(),
                one(
                    "literal f64",
                    Value::Float(f64::NAN),
                    "call calc::half(f64) -> f64",
                ),
            ),
        ]
    }

    #[test]
    fn a_model_resolves_to_its_tests_on_the_same_api() {
        let api = before();
        let reg = Registry::build(&api);
        let tests = tests(&reg, &api);
        let model = SuiteModel::from_tests(&reg, &api, &tests);
        let resolved = model.resolve(&reg, &api);
        assert!(resolved.dropped.is_empty(), "{:?}", resolved.dropped);
        // NaN != NaN: compare everything but the float's value, then its bits.
        assert_eq!(resolved.tests.len(), 3);
        for ((n1, t1), (n2, t2)) in resolved.tests.iter().zip(&tests) {
            assert_eq!(n1, n2);
            assert_eq!(t1.stmts.len(), t2.stmts.len());
            for (a, b) in t1.stmts.iter().zip(&t2.stmts) {
                assert_eq!((a.op, &a.args), (b.op, &b.args));
                match (&a.value, &b.value) {
                    (Some(Value::Float(x)), Some(Value::Float(y))) => {
                        assert_eq!(x.to_bits(), y.to_bits())
                    }
                    (x, y) => assert_eq!(x, y),
                }
            }
        }
    }

    #[test]
    fn a_model_survives_its_file_with_every_literal() {
        let dir = std::env::temp_dir().join(format!("frugal-suite-model-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(MODEL_FILE);
        let stmt = |value: Value| ModelStmt {
            op: "literal x".into(),
            args: vec![],
            value: Some(ModelValue::from(&value)),
        };
        let values = [
            Value::Int(u64::MAX as i128),
            Value::Int(i64::MIN as i128),
            Value::Int(i128::MAX),
            Value::Int(i128::MIN),
            Value::Float(f64::NEG_INFINITY),
            Value::Float(-0.0),
            Value::Float(0.1),
            Value::Float(1e300),
            Value::Bool(true),
            Value::Char('\u{2603}'),
            Value::Str("line\nbreak \"quoted\"".into()),
        ];
        let model = SuiteModel {
            version: MODEL_VERSION,
            krate: "calc".into(),
            tests: vec![ModelTest {
                name: "t".into(),
                stmts: values.iter().cloned().map(stmt).collect(),
            }],
        };
        model.write(&path).unwrap();
        let back = SuiteModel::read(&path).unwrap();
        assert_eq!(back, model);
        for (s, v) in back.tests[0].stmts.iter().zip(&values) {
            let read = Value::try_from(s.value.as_ref().unwrap()).unwrap();
            match (read, v) {
                (Value::Float(a), Value::Float(b)) => assert_eq!(a.to_bits(), b.to_bits()),
                (a, b) => assert_eq!(&a, b),
            }
        }
        std::fs::write(
            &path,
            r#"{"version": 2, "krate": "calc", "tests": [], "more": 1}"#,
        )
        .unwrap();
        let err = SuiteModel::read(&path).unwrap_err();
        assert!(err.to_string().contains("version 2"), "{err}");
        let stored = serde_json::to_string(&model).unwrap();
        assert_eq!(
            SuiteModel::from_json(&stored, "the stored model").unwrap(),
            model
        );
        let err = SuiteModel::from_json("[]", "the stored model").unwrap_err();
        assert!(
            err.to_string().starts_with("the stored model is not"),
            "{err}"
        );
        std::fs::write(&path, "{").unwrap();
        let err = SuiteModel::read(&path).unwrap_err();
        assert!(err.to_string().contains("not a frugal test model"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn tests_of_a_removed_or_changed_callable_are_dropped_with_the_reason() {
        let old = before();
        let reg = Registry::build(&old);
        let mut tests = tests(&reg, &old);
        // One more test calls both `double` and `shout`.
        let mut both = tests[0].1.clone();
        both.stmts.extend(tests[1].1.stmts.iter().map(|s| Stmt {
            args: s.args.iter().map(|a| a + 2).collect(),
            ..s.clone()
        }));
        assert_eq!(both.check(&reg.schema(&old)), Ok(()));
        tests.push(("test_both".into(), both));
        let model = SuiteModel::from_tests(&reg, &old, &tests);
        // `shout` is gone, `double` takes an i64 now, `half` is unchanged.
        let new = api(vec![
            free("half", vec![prim("f64")], Some(prim("f64"))),
            free("double", vec![prim("i64")], Some(prim("i64"))),
        ]);
        let new_reg = Registry::build(&new);
        let resolved = model.resolve(&new_reg, &new);
        let names: Vec<&str> = resolved.tests.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["test_half"]);
        // Ids moved (`half` is the first callable now): the test was re-keyed, not copied.
        let half = op(&new_reg, &new, "call calc::half(f64) -> f64");
        assert_eq!(resolved.tests[0].1.stmts[1].op, half);
        assert_eq!(resolved.tests[0].1.check(&new_reg.schema(&new)), Ok(()));
        let why: BTreeMap<&str, &str> = resolved
            .dropped
            .iter()
            .map(|(n, w)| (n.as_str(), w.as_str()))
            .collect();
        assert_eq!(why.len(), 3, "{why:?}");
        assert!(
            why["test_both"].contains("`calc::double` changed its signature")
                && why["test_both"].contains("`calc::shout` is gone"),
            "{why:?}"
        );
        assert!(
            why["test_shout"].contains("`calc::shout` is gone"),
            "{why:?}"
        );
        assert!(
            why["test_double"].contains("`calc::double` changed its signature")
                && why["test_double"].contains("calc::double(i64) -> i64"),
            "{why:?}"
        );
    }

    #[test]
    fn a_test_whose_types_no_longer_fit_is_dropped() {
        let old = before();
        let reg = Registry::build(&old);
        let mut model = SuiteModel::from_tests(&reg, &old, &tests(&reg, &old));
        // The call's key still exists, but its argument is now a string.
        model.tests[0].stmts[0] = ModelStmt {
            op: "literal String".into(),
            args: vec![],
            value: Some(ModelValue::Str("21".into())),
        };
        let resolved = model.resolve(&reg, &old);
        assert_eq!(resolved.dropped.len(), 1);
        assert_eq!(resolved.dropped[0].0, "test_double");
        assert!(
            resolved.dropped[0].1.contains("no longer fits"),
            "{:?}",
            resolved.dropped
        );
        let mut other = model.clone();
        other.krate = "other".into();
        assert_eq!(other.resolve(&reg, &old).dropped.len(), 3);
    }
}
