//! The operations that make a pool type's values: the crate's constructors, struct literals
//! and enum variants, its constants, std values (`std_values.rs`), repetitions and
//! formattings. `Registry::build` asks for them per type it needs.
//!
//! It must not know how operations are rendered or run: it only says what each builds from.

use frugal_search::Pass;

use super::registry::{Op, OpCode, find_type, is_copy, literal_kind, storable};
use super::std_values::*;
use crate::model::{ApiModel, Ty, TypeKind, VariantShape};

fn moved(t: &Ty) -> (Ty, Pass, Ty) {
    (t.clone(), Pass::Move, t.clone())
}

fn builder(code: OpCode, params: Vec<Ty>, ret: &Ty, name: String) -> Op {
    Op {
        code,
        params: params.iter().map(moved).collect(),
        ret: Some(ret.clone()),
        ret_source: Some(ret.clone()),
        name,
        keyed: false,
    }
}

/// `ty` (a `String` or `Vec<u8>`) repeated up to 255 times: long inputs, which a literal of a
/// few characters or a `vec!` of a few elements never are, reach the block-wise and SIMD paths
/// of checksums, encoders and searchers (crc32fast, adler2, memchr, base64). `u8::into` types
/// the count without a cast, which `trivial_numeric_casts` would flag on a literal.
pub(super) fn repeated(ty: &Ty) -> Op {
    std_value(
        ty,
        "{0}.repeat(u8::into({1}))",
        vec![ty.clone(), Ty::Prim("u8".into())],
    )
}

/// A std value of type `ty` written as `template` over `params` (see [`OpCode::StdValue`]).
fn std_value(ty: &Ty, template: &str, params: Vec<Ty>) -> Op {
    let code = OpCode::StdValue {
        ty: ty.clone(),
        template: template.to_string(),
    };
    builder(code, params, ty, template.to_string())
}

/// `Ok::<T, E>(t)` and `Err::<T, E>(e)`, for results of std types only (the template is
/// written inside the crate and in tests alike, where crate paths differ): what an
/// `Iterator<Item = Result<T, E>>` stand-in yields.
fn ok_and_err(ty: &Ty, t: &Ty, e: &Ty, model: &ApiModel) -> Vec<Op> {
    if !(std_only(t) && std_only(e) && storable(t) && storable(e)) {
        return Vec::new();
    }
    let (t_name, e_name) = (
        crate::harness::render::ty(t, &model.crate_name),
        crate::harness::render::ty(e, &model.crate_name),
    );
    [("Ok", t), ("Err", e)]
        .into_iter()
        .map(|(variant, inner)| {
            let template = format!("{variant}::<{t_name}, {e_name}>({{0}})");
            std_value(ty, &template, vec![inner.clone()])
        })
        .collect()
}

/// Whether a type names nothing of the crate (primitives, `String`, and std containers of
/// them).
fn std_only(ty: &Ty) -> bool {
    match ty {
        Ty::Prim(_) | Ty::String | Ty::Unit => true,
        Ty::Vec(t) | Ty::Option(t) => std_only(t),
        Ty::Result(t, e) => std_only(t) && std_only(e),
        Ty::Tuple(ts) => ts.iter().all(std_only),
        _ => false,
    }
}

/// How a variant's field is supplied: a pool value moved in, or for `&str`, `&[T]` and
/// `&OsStr` the owned pooled value lent to the value built.
fn field_slot(t: &Ty) -> Option<(Ty, Pass, Ty)> {
    if storable(t) {
        return Some(moved(t));
    }
    let Ty::Ref {
        mutable: false,
        inner,
    } = t
    else {
        return None;
    };
    let owned = owned_of_unsized(inner).filter(storable)?;
    Some((owned, Pass::Lend, t.clone()))
}

/// The non-call operations that produce or take apart `ty`.
pub(super) fn builders_for(ty: &Ty, model: &ApiModel) -> Vec<Op> {
    if let Some(ops) = unsized_builders(ty, model) {
        return ops;
    }
    let name = crate::harness::render::ty(ty, &model.crate_name);
    match ty {
        Ty::String => vec![
            builder(OpCode::Literal(ty.clone()), vec![], ty, name),
            repeated(ty),
        ],
        Ty::Prim(_) if literal_kind(ty).is_some() => {
            vec![builder(OpCode::Literal(ty.clone()), vec![], ty, name)]
        }
        Ty::Vec(t) => {
            let mut ops = vec![builder(
                OpCode::VecOf((**t).clone()),
                vec![(**t).clone()],
                ty,
                format!("vec![..]: {name}"),
            )];
            if **t == Ty::Prim("u8".into()) {
                ops.push(repeated(ty));
                ops.push(std_value(ty, "{0}.into_bytes()", vec![Ty::String]));
            }
            ops
        }
        Ty::Option(t) => vec![
            builder(
                OpCode::Some((**t).clone()),
                vec![(**t).clone()],
                ty,
                format!("Some: {name}"),
            ),
            builder(
                OpCode::None((**t).clone()),
                vec![],
                ty,
                format!("None: {name}"),
            ),
            Op {
                code: OpCode::UnwrapSome((**t).clone()),
                params: vec![moved(ty)],
                ret: Some((**t).clone()),
                ret_source: Some((**t).clone()),
                name: format!("unwrap: {name}"),
                keyed: false,
            },
        ],
        Ty::Result(t, e) => {
            let mut ops = ok_and_err(ty, t, e, model);
            ops.push(Op {
                code: OpCode::UnwrapOk((**t).clone()),
                params: vec![moved(ty)],
                ret: Some((**t).clone()),
                ret_source: Some((**t).clone()),
                name: format!("unwrap: {name}"),
                keyed: false,
            });
            if storable(e) {
                ops.push(Op {
                    code: OpCode::UnwrapErr((**e).clone()),
                    params: vec![moved(ty)],
                    ret: Some((**e).clone()),
                    ret_source: Some((**e).clone()),
                    name: format!("unwrap_err: {name}"),
                    keyed: false,
                });
            }
            ops
        }
        Ty::Adt { path, args } if args.is_empty() && !std_constructors(path).is_empty() => {
            std_constructors(path)
                .into_iter()
                .map(|(template, params)| std_value(ty, template, params))
                .collect()
        }
        Ty::Adt { path, args } if !collection(path, args).is_empty() => collection(path, args)
            .into_iter()
            .map(|(template, params)| std_value(ty, &template, params))
            .collect(),
        Ty::Adt { path, args } if args.is_empty() => {
            let mut ops = adt_builders(ty, path, model);
            ops.extend(crate_values(ty, false, model));
            ops
        }
        Ty::Adt { path, args } => generic_adt_builders(ty, path, args, model),
        Ty::Ref {
            mutable: false,
            inner,
        } => crate_values(inner, true, model),
        _ => Vec::new(),
    }
}

/// For a crate type that is unsized (`analyze::unsized_types`): nothing builds a value of it,
/// and a `Box` of it comes only from the crate's callables, its formatting and hashing read
/// through the `Box`. `None` for any other type.
fn unsized_builders(ty: &Ty, model: &ApiModel) -> Option<Vec<Op>> {
    let unsized_def = |t: &Ty| match t {
        Ty::Adt { path, .. } => find_type(model, path).filter(|d| d.unsized_tail),
        _ => None,
    };
    if unsized_def(ty).is_some() {
        return Some(Vec::new());
    }
    let Ty::Adt { path, args } = ty else {
        return None;
    };
    match args.as_slice() {
        [inner] if pointer(path) => {
            let def = unsized_def(inner)?;
            Some(trait_uses(ty, &def.path, def))
        }
        _ => None,
    }
}

/// The crate's constants and statics of type `ty`: by value (constants, and statics of a
/// `Copy` type), or `borrowed` for a `&'static` parameter.
fn crate_values(ty: &Ty, borrowed: bool, model: &ApiModel) -> Vec<Op> {
    let ret = if borrowed {
        Ty::Ref {
            mutable: false,
            inner: Box::new(ty.clone()),
        }
    } else {
        ty.clone()
    };
    model
        .values
        .iter()
        .filter(|v| &v.ty == ty && (borrowed || !v.is_ref))
        .filter(|v| borrowed || !v.is_static || is_copy(ty, model))
        .map(|v| {
            // A constant declared as a reference is passed as it is.
            let code = OpCode::CrateValue {
                path: v.path.clone(),
                borrowed: borrowed && !v.is_ref,
            };
            let name = format!("{}{}", if borrowed { "&" } else { "" }, v.path);
            builder(code, vec![], &ret, name)
        })
        .collect()
}

fn adt_builders(ty: &Ty, path: &str, model: &ApiModel) -> Vec<Op> {
    let Some(def) = find_type(model, path) else {
        return Vec::new();
    };
    if def.generic {
        return Vec::new();
    }
    let mut ops = constructors(ty, path, def);
    ops.extend(projections(ty, path, def, &model.crate_name));
    ops.extend(trait_uses(ty, path, def));
    ops
}

/// What a type's `Display`, `Debug` and `Hash` impls are reached by. For an instantiation of a
/// generic type the impl's bounds may not hold for the arguments; the harness build then drops
/// the operation (`harness::failing_ops`).
fn trait_uses(ty: &Ty, path: &str, def: &crate::model::TypeDef) -> Vec<Op> {
    let mut ops = Vec::new();
    let has = |name: &str| def.traits.iter().any(|t| t == name);
    if has("Display") {
        ops.push(formatting(
            ty,
            OpCode::Display(ty.clone()),
            format!("{path}::to_string"),
        ));
        let mut padded = formatting(
            ty,
            OpCode::DisplayPadded(ty.clone()),
            format!("{path}::fmt (Display, padded)"),
        );
        padded.params.push(moved(&Ty::Prim("u8".into())));
        ops.push(padded);
    }
    if has("Debug") {
        ops.push(formatting(
            ty,
            OpCode::DebugFmt(ty.clone()),
            format!("{path}::fmt (Debug)"),
        ));
    }
    if has("Hash") {
        let mut op = formatting(ty, OpCode::HashOf(ty.clone()), format!("{path}::hash"));
        op.ret = None;
        op.ret_source = None;
        ops.push(op);
    }
    ops
}

/// Literals and variants of an instantiation of a generic crate type (`Either<i32, i32>`):
/// its field types with the arguments in place of the type parameters.
fn generic_adt_builders(ty: &Ty, path: &str, args: &[Ty], model: &ApiModel) -> Vec<Op> {
    let Some(def) = find_type(model, path) else {
        return Vec::new();
    };
    if def.params.len() != args.len() {
        return Vec::new();
    }
    let instance = instantiate(def, args);
    let mut ops = constructors(ty, path, &instance);
    ops.extend(projections(ty, path, &instance, &model.crate_name));
    ops.extend(trait_uses(ty, path, &instance));
    ops
}

/// `def` with `args` in place of its type parameters in every field type.
fn instantiate(def: &crate::model::TypeDef, args: &[Ty]) -> crate::model::TypeDef {
    let sub = |t: &Ty| substitute(t, &def.params, args);
    let sub_fields = |fs: &[crate::model::Field]| {
        fs.iter()
            .map(|f| crate::model::Field {
                name: f.name.clone(),
                ty: sub(&f.ty),
            })
            .collect()
    };
    let kind = match &def.kind {
        TypeKind::Struct { fields, tuple } => TypeKind::Struct {
            fields: fields.as_deref().map(sub_fields),
            tuple: *tuple,
        },
        TypeKind::Enum { variants } => TypeKind::Enum {
            variants: variants
                .iter()
                .map(|v| crate::model::Variant {
                    name: v.name.clone(),
                    shape: match &v.shape {
                        VariantShape::Unit => VariantShape::Unit,
                        VariantShape::Tuple(ts) => {
                            VariantShape::Tuple(ts.iter().map(sub).collect())
                        }
                        VariantShape::Struct(fs) => VariantShape::Struct(sub_fields(fs)),
                    },
                })
                .collect(),
        },
    };
    crate::model::TypeDef {
        kind,
        ..def.clone()
    }
}

/// `ty` with each type parameter named in `params` replaced by the matching `args` entry.
fn substitute(ty: &Ty, params: &[String], args: &[Ty]) -> Ty {
    let sub = |t: &Ty| Box::new(substitute(t, params, args));
    match ty {
        Ty::Other(name) => params
            .iter()
            .position(|p| p == name)
            .map_or_else(|| ty.clone(), |i| args[i].clone()),
        Ty::Ref { mutable, inner } => Ty::Ref {
            mutable: *mutable,
            inner: sub(inner),
        },
        Ty::Slice(t) => Ty::Slice(sub(t)),
        Ty::Vec(t) => Ty::Vec(sub(t)),
        Ty::Option(t) => Ty::Option(sub(t)),
        Ty::Result(t, e) => Ty::Result(sub(t), sub(e)),
        Ty::Tuple(ts) => Ty::Tuple(ts.iter().map(|t| substitute(t, params, args)).collect()),
        Ty::Adt { path, args: inner } => Ty::Adt {
            path: path.clone(),
            args: inner.iter().map(|t| substitute(t, params, args)).collect(),
        },
        Ty::Unit | Ty::Prim(_) | Ty::Str | Ty::String => ty.clone(),
    }
}

/// An operation formatting a `ty` borrowed into a `String` (`Display` or `Debug`).
fn formatting(ty: &Ty, code: OpCode, name: String) -> Op {
    let borrowed = Ty::Ref {
        mutable: false,
        inner: Box::new(ty.clone()),
    };
    Op {
        code,
        params: vec![(ty.clone(), Pass::Ref, borrowed)],
        ret: Some(Ty::String),
        ret_source: Some(Ty::String),
        name,
        keyed: false,
    }
}

fn type_args(ty: &Ty) -> Vec<Ty> {
    match ty {
        Ty::Adt { args, .. } => args.clone(),
        _ => Vec::new(),
    }
}

/// For an enum of two variants or more: the crate value each one-field tuple variant holds
/// (`Entry::Occupied(OccupiedEntry<'a, T>)`). Such a value often comes from nowhere else:
/// `OccupiedEntry` has private fields and no constructor, and `map.entry(key)` returns it
/// only inside the enum. The operation panics on another variant, as an unwrap on `None`
/// does, and the search learns which calls give which variant.
fn projections(ty: &Ty, path: &str, def: &crate::model::TypeDef, krate: &str) -> Vec<Op> {
    let TypeKind::Enum { variants } = &def.kind else {
        return Vec::new();
    };
    if variants.len() < 2 {
        return Vec::new();
    }
    let crate_prefix = format!("{krate}::");
    variants
        .iter()
        .filter_map(|v| {
            let VariantShape::Tuple(fields) = &v.shape else {
                return None;
            };
            let [field] = fields.as_slice() else {
                return None;
            };
            let crate_type =
                matches!(field, Ty::Adt { path, .. } if path.starts_with(&crate_prefix));
            if !crate_type || !storable(field) {
                return None;
            }
            let vpath = format!("{path}::{}", v.name);
            Some(Op {
                code: OpCode::Project(vpath.clone()),
                params: vec![moved(ty)],
                ret: Some(field.clone()),
                ret_source: Some(field.clone()),
                name: format!("project: {vpath}"),
                keyed: false,
            })
        })
        .collect()
}

/// Struct literals and enum variants, when every part is something the pool can hold.
fn constructors(ty: &Ty, path: &str, def: &crate::model::TypeDef) -> Vec<Op> {
    match &def.kind {
        // `Token::Word(&'a str)`: the field borrows a pooled `String`, lent to the value for
        // the rest of the test, as a test writes `Token::Word(&text)`.
        TypeKind::Enum { variants } => variants
            .iter()
            .filter_map(|v| {
                let (types, fields, tuple) = match &v.shape {
                    VariantShape::Unit => (vec![], vec![], true),
                    VariantShape::Tuple(ts) => (ts.clone(), vec![], true),
                    VariantShape::Struct(fs) => (
                        fs.iter().map(|f| f.ty.clone()).collect(),
                        fs.iter().map(|f| f.name.clone()).collect(),
                        false,
                    ),
                };
                let params = types.iter().map(field_slot).collect::<Option<Vec<_>>>()?;
                let vpath = format!("{path}::{}", v.name);
                let code = OpCode::Variant {
                    path: vpath.clone(),
                    fields,
                    tuple,
                    args: type_args(ty),
                };
                Some(Op {
                    params,
                    ..builder(code, Vec::new(), ty, vpath)
                })
            })
            .collect(),
        TypeKind::Struct {
            fields: Some(fs),
            tuple,
        } => {
            let Some(params) = fs.iter().map(|f| field_slot(&f.ty)).collect() else {
                return Vec::new();
            };
            let code = OpCode::StructLit {
                path: path.to_string(),
                fields: fs.iter().map(|f| f.name.clone()).collect(),
                tuple: *tuple,
                args: type_args(ty),
            };
            vec![Op {
                params,
                ..builder(code, Vec::new(), ty, format!("{path} {{..}}"))
            }]
        }
        TypeKind::Struct { fields: None, .. } => Vec::new(),
    }
}
