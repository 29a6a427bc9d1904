//! Analysis over small fixture crates (one shape family each) and the bundled examples.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use frugal_subject::analyze::{
    AnalyzeError, AnalyzeOptions, analyze, analyze_detailed, ty_display,
};
use frugal_subject::model::{
    ApiModel, Callable, CallableKind, Receiver, Ty, TypeDef, TypeKind, VariantShape,
};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn model_with(dir: &Path, opts: &AnalyzeOptions) -> ApiModel {
    match analyze(dir, opts) {
        Ok(model) => model,
        Err(e) => panic!("analysis of {} failed: {e}", dir.display()),
    }
}

fn model(name: &str) -> ApiModel {
    model_with(&fixture(name), &AnalyzeOptions::default())
}

fn callable<'m>(m: &'m ApiModel, path: &str) -> &'m Callable {
    m.callables
        .iter()
        .find(|c| c.path == path)
        .unwrap_or_else(|| panic!("no callable {path} in\n{}", summary(m)))
}

fn type_def<'m>(m: &'m ApiModel, path: &str) -> &'m TypeDef {
    m.types
        .iter()
        .find(|t| t.path == path)
        .unwrap_or_else(|| panic!("no type {path} in\n{}", summary(m)))
}

fn callable_paths(m: &ApiModel) -> BTreeSet<&str> {
    m.callables.iter().map(|c| c.path.as_str()).collect()
}

/// Unsupported callables by path: (reason, detail).
fn unsupported(m: &ApiModel) -> BTreeMap<&str, (&str, &str)> {
    m.unsupported
        .iter()
        .map(|u| (u.path.as_str(), (u.reason.as_str(), u.detail.as_str())))
        .collect()
}

fn adt(path: &str) -> Ty {
    Ty::Adt {
        path: path.to_string(),
        args: Vec::new(),
    }
}

fn prim(name: &str) -> Ty {
    Ty::Prim(name.to_string())
}

/// One line per callable, readable in assertion messages: `path(&self, x: i32) -> bool [T = i32]`.
fn signature(c: &Callable) -> String {
    let recv = match &c.kind {
        CallableKind::Method {
            receiver: Receiver::Value,
            ..
        } => Some("self".to_string()),
        CallableKind::Method {
            receiver: Receiver::Ref,
            ..
        } => Some("&self".to_string()),
        CallableKind::Method {
            receiver: Receiver::RefMut,
            ..
        } => Some("&mut self".to_string()),
        _ => None,
    };
    let params = c
        .params
        .iter()
        .map(|p| format!("{}: {}", p.name, ty_display(&p.ty)));
    let params: Vec<String> = recv.into_iter().chain(params).collect();
    let ret = c
        .ret
        .as_ref()
        .map(|t| format!(" -> {}", ty_display(t)))
        .unwrap_or_default();
    let inst: Vec<String> = c
        .instantiation
        .iter()
        .map(|(n, t)| format!("{n} = {}", ty_display(t)))
        .collect();
    let inst = if inst.is_empty() {
        String::new()
    } else {
        format!(" [{}]", inst.join(", "))
    };
    format!("{}({}){ret}{inst}", c.path, params.join(", "))
}

fn summary(m: &ApiModel) -> String {
    let mut out = String::new();
    for c in &m.callables {
        out += &format!("callable {}\n", signature(c));
    }
    for u in &m.unsupported {
        out += &format!("unsupported {}: {} ({})\n", u.path, u.reason, u.detail);
    }
    for t in &m.types {
        out += &format!("type {} {:?}\n", t.path, t.traits);
    }
    out
}

#[test]
fn reexports_give_the_shortest_public_path() {
    let m = model("analyze_reexports");
    assert_eq!(m.crate_name, "analyze_reexports");
    let expected = [
        "analyze_reexports::basic",
        "analyze_reexports::not_extra",
        "analyze_reexports::returns_private",
        "analyze_reexports::helper",
        "analyze_reexports::Circle::grow",
        "analyze_reexports::Engine::new",
        "analyze_reexports::Engine::start",
        "analyze_reexports::Box2::new",
        "analyze_reexports::Box2::area",
        // Derived `Default` of a public type.
        "analyze_reexports::Custom::default",
    ];
    assert_eq!(
        callable_paths(&m),
        expected.into_iter().collect(),
        "{}",
        summary(&m)
    );
    let types: Vec<&str> = m.types.iter().map(|t| t.path.as_str()).collect();
    assert_eq!(
        types,
        [
            "analyze_reexports::Engine",
            "analyze_reexports::Circle",
            "analyze_reexports::Box2",
            "analyze_reexports::shapes::Sealed",
            "analyze_reexports::shapes::Kind",
            "analyze_reexports::Custom",
        ]
    );
}

#[test]
fn private_modules_restricted_and_hidden_items_are_not_public() {
    let m = model("analyze_reexports");
    for absent in [
        "secret",
        "internal",
        "crate_only",
        "hidden_fn",
        "private",
        "private_helper",
        "crate_helper",
        "works",
    ] {
        assert!(
            m.callables.iter().all(|c| c.name != absent)
                && m.unsupported
                    .iter()
                    .all(|u| u.path.rsplit("::").next() != Some(absent)),
            "{absent} should not be public:\n{}",
            summary(&m)
        );
    }
    // A private type cannot be named by a test: as a parameter it blocks, as a return it is text.
    assert_eq!(
        unsupported(&m).get("analyze_reexports::takes_private"),
        Some(&("private type", "Secret"))
    );
    let ret = &callable(&m, "analyze_reexports::returns_private").ret;
    assert_eq!(ret, &Some(Ty::Other("Secret".to_string())));
}

#[test]
fn files_lines_and_kinds_point_at_the_source() {
    let m = model("analyze_reexports");
    let new = callable(&m, "analyze_reexports::Engine::new");
    assert_eq!((new.file.as_str(), new.line), ("src/inner/deep.rs", 6));
    assert_eq!(
        new.kind,
        CallableKind::Assoc {
            self_ty: adt("analyze_reexports::Engine")
        }
    );
    assert_eq!(new.ret, Some(adt("analyze_reexports::Engine")));
    let grow = callable(&m, "analyze_reexports::Circle::grow");
    assert_eq!(grow.file, "src/imp.rs");
    assert_eq!(
        grow.kind,
        CallableKind::Method {
            self_ty: adt("analyze_reexports::Circle"),
            receiver: Receiver::RefMut
        }
    );
    assert_eq!(
        callable(&m, "analyze_reexports::helper").kind,
        CallableKind::Free
    );
}

#[test]
fn a_broken_module_file_is_a_warning_not_a_failure() {
    let analysis = analyze_detailed(&fixture("analyze_reexports"), &AnalyzeOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(analysis.warnings.len(), 1, "{:?}", analysis.warnings);
    assert_eq!(analysis.warnings[0].file, "src/broken.rs");
    assert!(analysis.warnings[0].message.contains("failed to parse"));
}

#[test]
fn features_select_cfg_items() {
    let dir = fixture("analyze_reexports");
    let with = |opts: AnalyzeOptions| {
        let m = model_with(&dir, &opts);
        ["basic", "extra", "not_extra"]
            .into_iter()
            .filter(|name| m.callables.iter().any(|c| c.name == *name))
            .collect::<Vec<_>>()
    };
    assert_eq!(with(AnalyzeOptions::default()), ["basic", "not_extra"]);
    let full = AnalyzeOptions {
        features: BTreeSet::from(["full".to_string()]),
        ..AnalyzeOptions::default()
    };
    assert_eq!(with(full), ["basic", "extra"]);
    let bare = AnalyzeOptions {
        no_default_features: true,
        ..AnalyzeOptions::default()
    };
    assert_eq!(with(bare), ["not_extra"]);
    let all = AnalyzeOptions {
        all_features: true,
        ..AnalyzeOptions::default()
    };
    assert_eq!(with(all), ["basic", "extra"]);
}

#[test]
fn struct_fields_only_when_all_public_and_enum_variants_with_shapes() {
    let m = model("analyze_reexports");
    let fields = |path: &str| match &type_def(&m, path).kind {
        TypeKind::Struct { fields, tuple } => (fields.as_ref().map(Vec::len), *tuple),
        TypeKind::Enum { .. } => panic!("{path} is a struct"),
    };
    assert_eq!(fields("analyze_reexports::Circle"), (Some(1), false));
    assert_eq!(fields("analyze_reexports::Box2"), (None, false));
    assert_eq!(fields("analyze_reexports::shapes::Sealed"), (None, false));
    assert_eq!(fields("analyze_reexports::Custom"), (Some(2), true));
    assert_eq!(
        type_def(&m, "analyze_reexports::Circle").traits,
        ["Clone", "Debug", "PartialEq"]
    );

    let TypeKind::Enum { variants } = &type_def(&m, "analyze_reexports::shapes::Kind").kind else {
        panic!("Kind is an enum");
    };
    let shapes: Vec<(&str, &VariantShape)> = variants
        .iter()
        .map(|v| (v.name.as_str(), &v.shape))
        .collect();
    assert_eq!(
        shapes.len(),
        3,
        "the doc(hidden) variant is left out: {shapes:?}"
    );
    assert_eq!(shapes[0], ("Round", &VariantShape::Unit));
    assert_eq!(shapes[1], ("Sides", &VariantShape::Tuple(vec![prim("u8")])));
    let VariantShape::Struct(named) = shapes[2].1 else {
        panic!("Named has named fields")
    };
    assert_eq!(named[1].ty, Ty::Option(Box::new(prim("u8"))));
}

#[test]
fn generic_parameters_are_instantiated_from_their_bounds() {
    let m = model("analyze_generics");
    let inst = |path: &str| {
        let c = callable(&m, path);
        (
            signature(c),
            c.instantiation
                .iter()
                .map(|(n, t)| format!("{n} = {}", ty_display(t)))
                .collect::<Vec<_>>(),
        )
    };
    assert_eq!(inst("gen::show").1, ["T = String"]);
    assert_eq!(inst("gen::total").1, ["impl Into<f64> = f64"]);
    assert_eq!(inst("gen::name_len").1, ["S = String"]);
    assert_eq!(inst("gen::bytes_len").1, ["impl AsRef<[u8]> = Vec<u8>"]);
    assert_eq!(inst("gen::smallest").1, ["T = i32"], "where clauses count");
    // A crate type implementing the crate trait is the candidate.
    assert_eq!(
        inst("gen::area_of").0,
        "gen::area_of(s: &gen::Circle) -> f64 [S = gen::Circle]"
    );
    // Generic impl blocks: T substituted in receiver, params and return.
    let push = callable(&m, "gen::Stack::push");
    let stack_i32 = Ty::Adt {
        path: "gen::Stack".to_string(),
        args: vec![prim("i32")],
    };
    assert_eq!(
        push.kind,
        CallableKind::Method {
            self_ty: stack_i32.clone(),
            receiver: Receiver::RefMut
        }
    );
    assert_eq!(push.params[0].ty, prim("i32"));
    assert_eq!(callable(&m, "gen::Stack::new").ret, Some(stack_i32));

    let un = unsupported(&m);
    assert_eq!(
        un.get("gen::copy_shape"),
        Some(&("generic bound without candidate", "S: Shape + Copy"))
    );
    assert_eq!(
        un.get("gen::encode"),
        Some(&("generic bound without candidate", "W: Wire"))
    );
}

#[test]
fn self_aliases_and_std_trait_impls_are_resolved() {
    let m = model("analyze_generics");
    let circle = adt("gen::Circle");
    let error = adt("gen::Error");
    assert_eq!(
        callable(&m, "gen::Circle::scaled").ret,
        Some(circle.clone()),
        "Self is the impl type"
    );
    // `type Result<T> = std::result::Result<T, Error>` expands.
    let check = callable(&m, "gen::check");
    assert_eq!(
        check.ret,
        Some(Ty::Result(Box::new(prim("u32")), Box::new(error.clone())))
    );
    assert_eq!(
        callable(&m, "gen::io_thing").ret,
        Some(Ty::Other("std::io::Result<()>".to_string()))
    );
    // Trait impls that tests call by name become callables.
    assert_eq!(
        callable(&m, "gen::Circle::default").kind,
        CallableKind::Assoc {
            self_ty: circle.clone()
        }
    );
    assert_eq!(
        callable(&m, "gen::Circle::clone").kind,
        CallableKind::Method {
            self_ty: circle.clone(),
            receiver: Receiver::Ref
        }
    );
    let from_str = callable(&m, "gen::Circle::from_str");
    assert_eq!(
        from_str.params[0].ty,
        Ty::Ref {
            mutable: false,
            inner: Box::new(Ty::Str)
        }
    );
    assert_eq!(
        from_str.ret,
        Some(Ty::Result(Box::new(circle.clone()), Box::new(error)))
    );
    assert_eq!(callable(&m, "gen::Circle::from").params[0].ty, prim("f64"));
    assert_eq!(
        callable(&m, "gen::Circle::into_parts").ret,
        Some(Ty::Tuple(vec![prim("f64"), prim("bool")]))
    );
    // The crate's own public traits' methods are callables, called through the trait.
    let area = callable(&m, "gen::Shape::area");
    assert_eq!(area.via_trait.as_deref(), Some("gen::Shape"));
    assert_eq!(
        area.kind,
        CallableKind::Method {
            self_ty: circle.clone(),
            receiver: Receiver::Ref
        }
    );
    // Other trait impls are recorded on the type, not as callables.
    let traits = &type_def(&m, "gen::Circle").traits;
    for t in [
        "Clone",
        "Debug",
        "Default",
        "Display",
        "From<f64>",
        "FromStr",
        "PartialEq",
        "Shape",
    ] {
        assert!(traits.iter().any(|x| x == t), "{t} missing from {traits:?}");
    }
    assert!(
        m.callables.iter().all(|c| c.name != "fmt"),
        "{}",
        summary(&m)
    );
}

#[test]
fn lifetime_carrying_types_are_callable_and_lend_what_the_result_borrows() {
    let m = model("analyze_generics");
    // `Parser<'a>`: lifetimes alone do not make it generic.
    assert!(!type_def(&m, "gen::Parser").generic);
    assert!(type_def(&m, "gen::Stack").generic);
    assert!(!type_def(&m, "gen::Circle").generic);
    let parser = Ty::Adt {
        path: "gen::Parser".into(),
        args: vec![],
    };
    // `new(text: &'a str) -> Self` keeps `text`: it is lent to the result.
    let new = callable(&m, "gen::Parser::new");
    assert_eq!(
        new.params[0].ty,
        Ty::Ref {
            mutable: false,
            inner: Box::new(Ty::Str)
        }
    );
    assert_eq!(new.ret, Some(parser.clone()));
    assert_eq!(new.lent, vec![0]);
    // `first_word(&self) -> Option<&'a str>` borrows the text, not the parser.
    assert!(callable(&m, "gen::Parser::first_word").lent.is_empty());
    let parse_with = callable(&m, "gen::parse_with");
    assert_eq!(
        parse_with.params[0].ty,
        Ty::Ref {
            mutable: false,
            inner: Box::new(parser)
        }
    );
    assert!(parse_with.lent.is_empty());
}

#[test]
fn std_value_types_lower_to_std_paths() {
    let m = model("analyze_unsupported");
    let wait = callable(&m, "analyze_unsupported::wait");
    assert_eq!(wait.params[0].ty, adt("std::time::Duration"));
    // Addresses, by full path or imported.
    let peer = callable(&m, "analyze_unsupported::peer");
    assert_eq!(peer.params[0].ty, adt("std::net::SocketAddr"));
    assert_eq!(
        peer.params[1].ty,
        Ty::Ref {
            mutable: false,
            inner: Box::new(adt("std::net::Ipv6Addr"))
        }
    );
}

#[test]
fn in_crate_analysis_sees_what_the_crate_root_can_name() {
    let opts = AnalyzeOptions {
        in_crate: true,
        ..AnalyzeOptions::default()
    };
    let m = model_with(&fixture("analyze_reexports"), &opts);
    let paths = callable_paths(&m);
    // Private and restricted items reachable from the root; test-only code stays out.
    for present in [
        "analyze_reexports::crate_only",
        "analyze_reexports::private",
        "analyze_reexports::internal",
        "analyze_reexports::hidden_stuff::secret",
        "analyze_reexports::takes_private",
        // `#[doc(hidden)]` methods: the crate's own tests call them too.
        "analyze_reexports::Box2::internal_scaled",
    ] {
        assert!(
            paths.contains(present),
            "{present} missing:\n{}",
            summary(&m)
        );
    }
    assert!(m.callables.iter().all(|c| c.name != "works"));
    // The same crate seen from an integration test keeps them out.
    let outside = model("analyze_reexports");
    let outside = callable_paths(&outside);
    assert!(!outside.contains("analyze_reexports::crate_only"));
    assert!(!outside.contains("analyze_reexports::Box2::internal_scaled"));
}

#[test]
fn a_binary_crate_is_analysed_from_main_in_crate_only() {
    let dir = fixture("bin_only");
    assert!(matches!(
        analyze(&dir, &AnalyzeOptions::default()),
        Err(AnalyzeError::NoLibrary { .. })
    ));
    let opts = AnalyzeOptions {
        in_crate: true,
        ..AnalyzeOptions::default()
    };
    let m = model_with(&dir, &opts);
    assert_eq!(m.crate_name, "bin_only");
    let paths = callable_paths(&m);
    for present in [
        "bin_only::double",
        "bin_only::render",
        "bin_only::main",
        "bin_only::util::triple",
        "bin_only::util::halve",
        "bin_only::util::wait_for",
    ] {
        assert!(
            paths.contains(present),
            "{present} missing:\n{}",
            summary(&m)
        );
    }
    // A generic trait's crate-type argument is left to inference: `bin_only::Config` names
    // no crate in a binary's tests (lsd's `Configurable<Blocks>`: E0433 for 32 callables).
    let preset = callable(&m, "bin_only::Preset::preset");
    assert_eq!(preset.via_trait.as_deref(), Some("bin_only::Preset<_>"));
    // Private to `util`: the root cannot name it, a test module inside `util` can.
    assert_eq!(m.homes["bin_only::util::hidden"].module, "util");
    assert!(!m.homes.contains_key("bin_only::util::halve"));
    // A `Result` whose error type cannot be lowered keeps its `Ok` type.
    let parse = callable(&m, "bin_only::util::parse_width");
    assert_eq!(
        parse.ret,
        Some(Ty::Result(
            Box::new(prim("u32")),
            Box::new(Ty::Other("Box<dyn std::error::Error>".into()))
        ))
    );
    // Private fields of a root struct are visible to a root child module: a literal builds it.
    let config = type_def(&m, "bin_only::Config");
    assert!(matches!(
        &config.kind,
        TypeKind::Struct { fields: Some(f), .. } if f.len() == 2
    ));
}

/// Private items of modules with a file of their own are callable from a test module inside
/// that module: each gets the module and file as its home.
#[test]
fn private_items_get_the_module_a_test_must_live_in() {
    let in_crate = AnalyzeOptions {
        in_crate: true,
        ..AnalyzeOptions::default()
    };
    let m = model_with(&fixture("private_mods"), &in_crate);
    let paths = callable_paths(&m);
    let home = |p: &str| {
        assert!(paths.contains(p), "{p} missing:\n{}", summary(&m));
        let h = &m.homes[p];
        (h.module.as_str(), h.file.as_str())
    };
    assert_eq!(home("private_mods::date::is_leap"), ("date", "src/date.rs"));
    assert_eq!(
        home("private_mods::date::Span::new"),
        ("date", "src/date.rs")
    );
    assert_eq!(
        home("private_mods::date::Span::weeks"),
        ("date", "src/date.rs")
    );
    assert_eq!(
        home("private_mods::date::parse::suffix"),
        ("date::parse", "src/date/parse.rs")
    );
    assert_eq!(
        home("private_mods::legacy::is_weekend"),
        ("legacy", "src/legacy.rs")
    );
    // `pub(super)` in a module of the root: the root names it.
    assert!(paths.contains("private_mods::date::days_in_month"));
    assert!(!m.homes.contains_key("private_mods::date::days_in_month"));
    // An inline module has no file of its own to place tests in.
    assert!(!paths.contains("private_mods::date::inline::unreachable_by_tests"));
    // From an integration test only the public function is callable, and nothing has a home.
    let outside = model_with(&fixture("private_mods"), &AnalyzeOptions::default());
    assert!(outside.homes.is_empty());
    assert!(!callable_paths(&outside).contains("private_mods::date::is_leap"));
}

#[test]
fn every_unsupported_reason_is_reported() {
    let m = model("analyze_unsupported");
    let expected = [
        // A closure returning a value the harness can hold, or nothing, is supported; one
        // returning a reference is not.
        (
            "closure",
            "closure parameter",
            "impl Fn(i32) -> &'static str",
        ),
        ("object", "trait object", "dyn fmt::Debug"),
        ("danger", "unsafe fn", "unsafe fn danger"),
        ("fixed", "const generic", "const LOUD: bool"),
        ("dep", "dependency type", "regex::Regex"),
        ("queued", "std type not supported", "VecDeque<i32>"),
        ("raw", "raw pointer", "*mut i32"),
        ("callback", "fn pointer", "fn(i32) -> i32"),
        (
            "serialize",
            "generic bound without candidate",
            "S: serde::Serializer",
        ),
        ("Thing::render", "formatter", "fmt::Formatter<'_>"),
    ];
    let un = unsupported(&m);
    for (name, reason, detail) in expected {
        let path = format!("analyze_unsupported::{name}");
        assert_eq!(
            un.get(path.as_str()),
            Some(&(reason, detail)),
            "{}",
            summary(&m)
        );
    }
    assert_eq!(un.len(), expected.len(), "{}", summary(&m));
    // Std maps and sets are built from `Vec`s.
    // A closure returning nothing gets one that does nothing; its operand is a `u8` it ignores.
    let unit = &callable(&m, "analyze_unsupported::closure_generic").params[0];
    assert!(
        unit.closure.as_ref().is_some_and(|c| c.returns_unit),
        "{unit:?}"
    );
    // A receiver behind a std pointer is the first argument of a call by path.
    assert_eq!(
        signature(callable(&m, "analyze_unsupported::Thing::boxed")),
        "analyze_unsupported::Thing::boxed(self: Box<analyze_unsupported::Thing>)"
    );
    // An `async fn` is called through the harness's executor, its future's output the result.
    assert!(callable(&m, "analyze_unsupported::later").asynchronous);
    assert_eq!(
        signature(callable(&m, "analyze_unsupported::lookup")),
        "analyze_unsupported::lookup(m: &std::collections::HashMap<String, i32>) -> usize"
    );
    assert_eq!(
        signature(callable(&m, "analyze_unsupported::Thing::fine")),
        "analyze_unsupported::Thing::fine(&mut self, x: i32, s: &str, v: Vec<u8>, o: Option<(u8, char)>, sl: &[i64]) -> bool"
    );
    assert_eq!(
        type_def(&m, "analyze_unsupported::Thing").traits,
        ["Display"]
    );
}

#[test]
#[expect(clippy::approx_constant, reason = "the fixture holds the literal 3.14")]
fn constants_come_from_code_and_match_patterns() {
    let m = model("analyze_generics");
    let k = &m.constants;
    assert!(
        k.strings.iter().any(|s| s == "unit"),
        "match arm pattern: {k:?}"
    );
    assert!(k.floats.contains(&3.14) && k.floats.contains(&1.0), "{k:?}");
    assert!(k.ints.contains(&42) && k.ints.contains(&10), "{k:?}");
    assert_eq!(k.chars, [' ']);
    assert!(
        k.strings
            .iter()
            .all(|s| !s.contains("Generic instantiation")),
        "doc comments are not code"
    );
    let sorted = |v: &[i128]| v.windows(2).all(|w| w[0] < w[1]);
    assert!(sorted(&k.ints), "sorted and deduplicated");
}

#[test]
fn manifest_errors_name_the_problem() {
    let missing = fixture("analyze_does_not_exist");
    assert!(matches!(
        analyze(&missing, &AnalyzeOptions::default()),
        Err(AnalyzeError::Read { .. })
    ));
}

/// Every `pub fn` written in an example crate's non-test code, by name.
fn pub_fn_names(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    let mut files = vec![dir.join("src")];
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(
                std::fs::read_dir(&path)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|e| e.path()),
            );
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        // The examples keep their unit tests in one trailing `#[cfg(test)]` module.
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for line in code.lines() {
            let line = line.trim_start();
            let rest = line
                .strip_prefix("pub fn ")
                .or_else(|| line.strip_prefix("pub const fn "));
            if let Some(rest) = rest {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                names.push(name);
            }
        }
    }
    names
}

#[test]
fn example_crates_account_for_every_pub_fn() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&examples)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.join("Cargo.toml").is_file())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    assert!(
        !dirs.is_empty(),
        "no example crates under {}",
        examples.display()
    );
    for dir in dirs {
        let analysis =
            analyze_detailed(&dir, &AnalyzeOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        let m = &analysis.model;
        assert!(
            analysis.warnings.is_empty(),
            "{}: {:?}",
            dir.display(),
            analysis.warnings
        );
        let accounted: BTreeSet<&str> = m
            .callables
            .iter()
            .map(|c| c.name.as_str())
            .chain(
                m.unsupported
                    .iter()
                    .filter_map(|u| u.path.rsplit("::").next()),
            )
            .collect();
        let pub_fns = pub_fn_names(&dir);
        for name in &pub_fns {
            assert!(
                accounted.contains(name.as_str()),
                "{}: pub fn {name} missing\n{}",
                dir.display(),
                summary(m)
            );
        }
        assert!(m.callables.len() + m.unsupported.len() >= pub_fns.len());
        assert!(!m.callables.is_empty(), "{}: no callables", dir.display());
        for c in &m.callables {
            assert!(
                c.path.starts_with(&format!("{}::", m.crate_name)),
                "{}",
                c.path
            );
            assert!(
                c.params.iter().all(|p| !matches!(p.ty, Ty::Other(_))),
                "{}",
                signature(c)
            );
            let source = std::fs::read_to_string(dir.join(&c.file)).unwrap_or_default();
            let line = source
                .lines()
                .nth(c.line.saturating_sub(1))
                .unwrap_or_default();
            // A derived `Default` points at its type.
            let derived =
                c.name == "default" && (line.contains("struct ") || line.contains("enum "));
            assert!(
                line.contains(&format!("fn {}", c.name)) || derived,
                "{}: line {} is `{line}`",
                c.path,
                c.line
            );
        }
        for u in &m.unsupported {
            assert!(!u.reason.is_empty() && !u.detail.is_empty(), "{u:?}");
        }
        let reasons: BTreeMap<&str, usize> =
            m.unsupported.iter().fold(BTreeMap::new(), |mut acc, u| {
                *acc.entry(u.reason.as_str()).or_default() += 1;
                acc
            });
        eprintln!(
            "{}: {} callables, {} types, unsupported {reasons:?}, constants {}i/{}f/{}s/{}c",
            m.crate_name,
            m.callables.len(),
            m.types.len(),
            m.constants.ints.len(),
            m.constants.floats.len(),
            m.constants.strings.len(),
            m.constants.chars.len()
        );
    }
}

#[test]
fn operator_impls_are_callables_written_as_operators() {
    let m = model("analyze_operators");
    let money = adt("ops::Money");
    let op = |name: &str| {
        m.callables
            .iter()
            .find(|c| c.path == format!("ops::Money::{name}"))
            .unwrap_or_else(|| panic!("no ops::Money::{name} in\n{}", summary(&m)))
    };
    let add = op("add");
    assert_eq!(add.operator.as_deref(), Some("+"));
    assert_eq!(add.ret, Some(money.clone()));
    // `impl Sub<&i64> for &Money`: `self` borrows a `Money`; `Self::Output` is resolved.
    let sub = op("sub");
    assert_eq!(sub.operator.as_deref(), Some("-"));
    assert!(matches!(
        sub.kind,
        CallableKind::Method {
            receiver: Receiver::Ref,
            ..
        }
    ));
    assert_eq!(sub.ret, Some(money.clone()));
    assert_eq!(op("neg").operator.as_deref(), Some("-"));
    let add_assign = op("add_assign");
    assert_eq!(add_assign.operator.as_deref(), Some("+="));
    assert!(matches!(
        add_assign.kind,
        CallableKind::Method {
            receiver: Receiver::RefMut,
            ..
        }
    ));
    // Comparison traits are in the prelude: called by name.
    assert_eq!(op("partial_cmp").operator, None);
}

/// A predicate with an integer argument, or a borrow of one, names it as its key (a call may
/// pass a closure deciding by it); other closures have none.
#[test]
fn predicates_name_their_integer_argument_as_key() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/modern");
    let m = model_with(&dir, &AnalyzeOptions::default());
    let closure = |path: &str| {
        callable(&m, path)
            .params
            .iter()
            .find_map(|p| p.closure.clone())
            .unwrap_or_else(|| panic!("{path} has no closure parameter"))
    };
    let keep_if = closure("modern::callbacks::keep_if");
    assert_eq!(
        keep_if.key,
        Some(frugal_subject::model::ClosureKey {
            arg: 0,
            borrowed: true,
            ty: Ty::Prim("i32".into()),
        })
    );
    // `FnOnce() -> String` has no argument, `FnMut(u32) -> u32` is no predicate.
    assert_eq!(closure("modern::callbacks::or_else_with").key, None);
    assert_eq!(closure("modern::callbacks::iterate").key, None);
    // The registry calls `keep_if` both ways: the twin's closure slot takes the key's `i32`.
    let reg = frugal_subject::harness::registry::Registry::build(&m);
    let ops: Vec<_> = reg
        .ops
        .iter()
        .filter(|o| o.name.starts_with("modern::callbacks::keep_if"))
        .collect();
    assert_eq!(ops.len(), 2, "{ops:?}");
    assert!(!ops[0].keyed && ops[1].keyed);
    assert_eq!(ops[0].params[1].0, Ty::Prim("bool".into()));
    assert_eq!(ops[1].params[1].0, Ty::Prim("i32".into()));
}

/// A macro stamping out `impl Array for [T; $size]` over eight sizes is expanded, so
/// `Array::size` is a callable; of the eight copies of it, three lengths are kept (the
/// shortest, the nearest to 4, the longest), not one callable per length (hex's 140).
#[test]
fn a_function_stamped_out_per_array_length_is_kept_at_three_lengths() {
    let m = model("array_backed");
    let lengths: Vec<String> = m
        .callables
        .iter()
        .filter(|c| c.path == "array_backed::Array::size")
        .filter_map(|c| match &c.kind {
            CallableKind::Assoc { self_ty } => Some(ty_display(self_ty)),
            _ => None,
        })
        .collect();
    assert_eq!(lengths.len(), 3, "{lengths:?}");
    for kept in ["; 0]", "; 4]", "; 32]"] {
        assert!(lengths.iter().any(|l| l.ends_with(kept)), "{lengths:?}");
    }
}
