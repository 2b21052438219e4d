//! The Go types the manager's templates run over: `templateData` and the Kubernetes types it
//! reaches, with their fields and the methods text/template can call, read from the table
//! `gotypes/types.txt` that `go run .` in `gotypes/` writes from the real types by reflection
//! (k8s.io/api and k8s.io/apimachinery v0.36.2, the manager's).

use std::sync::OnceLock;

/// The table as committed.
pub(super) const TABLE: &str = include_str!("gotypes/types.txt");

/// A type's place in the table.
pub(super) type Id = usize;

/// `*templateData`, the data every template executes over.
pub(super) const DATA: Id = 0;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Type {
    /// reflect's `Kind` (`struct`, `ptr`, `slice`, `map`, `string`, `int64`, `interface`...).
    pub kind: String,
    pub name: String,
    /// Of a pointer, slice, array or map.
    pub elem: Option<Id>,
    pub key: Option<Id>,
    /// Whether a plain string is a key of this map (text/template's `.key` on a map).
    pub string_key: bool,
    /// A named type the table does not follow past (a method's result from another package):
    /// what is done with its value is the cluster's to know.
    pub opaque: bool,
    /// Exported fields as reflect's `FieldByName` finds them, and whether each is promoted
    /// through an embedded pointer.
    pub fields: Vec<(String, Id, bool)>,
    pub methods: Vec<Method>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Method {
    pub name: String,
    pub args: usize,
    pub variadic: bool,
    /// Only in the method set of the pointer (`func (t *T)`): an unaddressable `T` lacks it.
    pub pointer: bool,
    pub result: Returns,
}

/// What a method gives text/template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Returns {
    /// Its first result, of this type.
    Type(Id),
    /// A value of a type the table does not hold (the pointer to a type no field points to).
    Untracked,
    /// Nothing text/template can call: no result, or a second that is not `error` (listed
    /// only on maps, where another name is a key).
    Nothing,
}

#[derive(Debug)]
pub(super) struct Types {
    pub types: Vec<Type>,
}

/// The table, read once.
pub(super) fn types() -> &'static Types {
    static TYPES: OnceLock<Types> = OnceLock::new();
    TYPES.get_or_init(|| read(TABLE).expect("the committed type table reads"))
}

impl Types {
    pub fn get(&self, id: Id) -> &Type {
        &self.types[id]
    }

    pub fn by_name(&self, name: &str) -> Option<Id> {
        self.types.iter().position(|t| t.name == name)
    }

    pub fn field(&self, id: Id, name: &str) -> Option<(Id, bool)> {
        self.get(id).fields.iter().find(|(f, _, _)| f == name).map(|(_, t, p)| (*t, *p))
    }

    /// The method `name` of a value of type `id`: for a pointer, of the type it points to,
    /// any receiver; for an addressable value, any; otherwise only those of the value.
    pub fn method(&self, id: Id, name: &str, addressable: bool) -> Option<&Method> {
        let t = self.get(id);
        let (owner, any) = match (t.kind.as_str(), t.elem) {
            ("ptr", Some(elem)) => (elem, true),
            _ => (id, addressable),
        };
        self.get(owner).methods.iter().find(|m| m.name == name && (any || !m.pointer))
    }
}

/// Reads the table; `Err` names the line it cannot read.
pub(super) fn read(table: &str) -> Result<Types, String> {
    let mut types: Vec<Type> = Vec::new();
    let mut common: Vec<Method> = Vec::new();
    for (n, line) in table.lines().enumerate() {
        let bad = || format!("line {}: {line:?}", n + 1);
        let words: Vec<&str> = line.split(' ').collect();
        match words.as_slice() {
            [] | [""] => {}
            [hash, ..] if hash.starts_with('#') => {}
            ["c", rest @ ..] => common.push(method(rest).ok_or_else(bad)?),
            ["t", id, kind, name, rest @ ..] => {
                if id.parse::<usize>().ok() != Some(types.len()) {
                    return Err(bad());
                }
                let numbers: Vec<Id> = rest.iter().map_while(|w| w.parse().ok()).collect();
                let flags = &rest[numbers.len()..];
                let mut t = Type {
                    kind: kind.to_string(),
                    name: name.to_string(),
                    elem: numbers.first().copied(),
                    key: numbers.get(1).copied(),
                    string_key: flags.contains(&"skey"),
                    opaque: flags.contains(&"opaque"),
                    fields: Vec::new(),
                    methods: Vec::new(),
                };
                if flags.contains(&"common") {
                    t.methods = common.clone();
                }
                types.push(t);
            }
            ["f", name, id, rest @ ..] => {
                let t = types.last_mut().ok_or_else(bad)?;
                t.fields.push((name.to_string(), id.parse().map_err(|_| bad())?, rest == ["ptr"]));
            }
            ["m", rest @ ..] => {
                let m = method(rest).ok_or_else(bad)?;
                types.last_mut().ok_or_else(bad)?.methods.push(m);
            }
            _ => return Err(bad()),
        }
    }
    // A common method's result `*` or `=` is relative to the type that has it.
    let pointers: Vec<(Id, Id)> = types
        .iter()
        .enumerate()
        .filter(|(_, t)| t.kind == "ptr")
        .filter_map(|(i, t)| Some((t.elem?, i)))
        .collect();
    for (id, t) in types.iter_mut().enumerate() {
        for m in &mut t.methods {
            m.result = match m.result {
                Returns::Type(SELF_POINTER) => pointers
                    .iter()
                    .find(|(e, _)| *e == id)
                    .map_or(Returns::Untracked, |(_, p)| Returns::Type(*p)),
                Returns::Type(SELF) => Returns::Type(id),
                other => other,
            };
        }
    }
    Ok(Types { types })
}

const SELF_POINTER: Id = usize::MAX;
const SELF: Id = usize::MAX - 1;

fn method(words: &[&str]) -> Option<Method> {
    let [name, args, variadic, recv, result] = words else { return None };
    Some(Method {
        name: name.to_string(),
        args: args.parse().ok()?,
        variadic: *variadic == "1",
        pointer: *recv == "p",
        result: match *result {
            "*" => Returns::Type(SELF_POINTER),
            "=" => Returns::Type(SELF),
            r if r.starts_with('!') => Returns::Nothing,
            r => Returns::Type(r.parse().ok()?),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(name: &str) -> Id {
        types().by_name(name).unwrap_or_else(|| panic!("{name} is in the table"))
    }

    /// What the resolver takes from the table: templateData's fields and the types behind
    /// them (entries.go), ObjectMeta's getters, the map the labels are, addressable methods.
    #[test]
    fn the_table_holds_templatedata_and_what_the_resolver_reads_of_it() {
        let t = types();
        let data = t.get(DATA);
        assert_eq!((data.kind.as_str(), data.name.as_str()), ("ptr", "*templateData"));
        let fields: Vec<(&str, &str)> = t
            .get(data.elem.unwrap())
            .fields
            .iter()
            .map(|(f, ty, _)| (f.as_str(), t.get(*ty).name.as_str()))
            .collect();
        assert_eq!(
            fields,
            [
                ("TrustDomain", "string"),
                ("ClusterName", "string"),
                ("ClusterDomain", "string"),
                ("PodMeta", "*v1.ObjectMeta"),
                ("PodSpec", "*v1.PodSpec"),
                ("NodeMeta", "*v1.ObjectMeta"),
                ("NodeSpec", "*v1.NodeSpec"),
            ]
        );
        let meta = id("*v1.ObjectMeta");
        for (name, result) in [
            ("GetNamespace", "string"),
            ("GetName", "string"),
            ("GetLabels", "map[string]string"),
            ("String", "string"),
            ("GetUID", "types.UID"),
        ] {
            let m = t.method(meta, name, false).unwrap_or_else(|| panic!("{name}"));
            assert_eq!((m.args, m.result), (0, Returns::Type(id(result))), "{name}");
        }
        // Methods with no result are left out: a template cannot call them.
        assert!(t.method(meta, "SetName", false).is_none() && t.method(meta, "Reset", false).is_none());
        for (field, ty) in [("Namespace", "string"), ("Name", "string"), ("Labels", "map[string]string")] {
            assert_eq!(t.field(t.get(meta).elem.unwrap(), field), Some((id(ty), false)), "{field}");
        }
        let spec = t.get(id("*v1.PodSpec")).elem.unwrap();
        assert_eq!(t.field(spec, "ServiceAccountName"), Some((id("string"), false)));
        assert!(t.method(spec, "GetServiceAccountName", true).is_none(), "no such getter");
        assert!(t.get(id("map[string]string")).string_key);
        assert!(!t.get(id("v1.ResourceList")).string_key, "its keys are ResourceNames");
        // metav1.Time's IsZero takes a pointer: a value no field holds lacks it.
        let time = id("v1.Time");
        assert!(t.method(time, "IsZero", true).is_some() && t.method(time, "IsZero", false).is_none());
        assert_eq!(t.method(time, "Unix", false).map(|m| m.result), Some(Returns::Type(id("int64"))));
    }

    #[test]
    fn every_type_the_table_names_is_in_it_and_an_opaque_one_is_empty() {
        let t = types();
        let n = t.types.len();
        for ty in &t.types {
            for part in ty.elem.iter().chain(&ty.key).chain(ty.fields.iter().map(|(_, f, _)| f)) {
                assert!(*part < n, "{}", ty.name);
            }
            for m in &ty.methods {
                if let Returns::Type(r) = m.result {
                    assert!(r < n, "{}.{}", ty.name, m.name);
                }
            }
            if ty.opaque {
                assert!(ty.fields.is_empty() && ty.methods.is_empty(), "{}", ty.name);
            }
        }
        assert!(read("t 0 ptr *x 1\nq what").unwrap_err().contains("line 2"));
        assert!(read("t 1 ptr *x 1").is_err(), "ids count from 0");
    }
}
