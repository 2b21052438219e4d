//! text/template's builtin functions (text/template/funcs.go), as `evalCall` runs them: the
//! number of arguments checked first, `and` and `or` evaluating theirs only as far as needed,
//! then the function on settled arguments where reproducing Go is cheap and exact (`index`
//! of the labels or a string, `len`, `slice` of a string, `not`, the comparisons, `print`,
//! `println`, `printf` with `%s %v %d %t %%`, `html`, `js`, `urlquery`), and the cluster's
//! value otherwise.

use super::eval::{State, Step};
use super::parse::Arg;
use super::value::Value;
use super::{fields, number};

/// The parameters of each builtin: how many are fixed, and whether more may follow.
fn signature(name: &str) -> (usize, bool) {
    match name {
        "and" | "or" | "call" | "index" | "slice" | "printf" | "eq" => (1, true),
        "len" | "not" => (1, false),
        "ne" | "lt" | "le" | "gt" | "ge" => (2, false),
        // html, js, urlquery, print, println
        _ => (0, true),
    }
}

pub(super) fn call(
    state: &mut State<'_, '_>,
    name: &str,
    args: &[Arg],
    dot: &Value,
    last: Option<Value>,
) -> Step {
    let (fixed, variadic) = signature(name);
    let given = args.len() + usize::from(last.is_some());
    if variadic && given < fixed {
        return Err(format!("wrong number of args for {name}: want at least {fixed} got {given}"));
    }
    if !variadic && given != fixed {
        return Err(format!("wrong number of args for {name}: want {fixed} got {given}"));
    }
    if name == "and" || name == "or" {
        let mut value = Value::ANY;
        for arg in args {
            value = state.arg(dot, arg)?;
            match value.truth() {
                Some(t) if t == (name == "or") => return Ok(value),
                Some(_) => {}
                // Whether Go goes on to the next is the cluster's.
                None => return Ok(Value::ANY),
            }
        }
        return Ok(last.unwrap_or(value));
    }
    // printf's format is a string: a constant of another kind is refused as Go reads it.
    if name == "printf"
        && let Some(format) = args.first()
        && matches!(format, Arg::Number(_) | Arg::Bool(_) | Arg::Nil)
    {
        return Err("printf's format must be a string".into());
    }
    let mut values = Vec::with_capacity(given);
    for arg in args {
        values.push(state.arg(dot, arg)?);
    }
    values.extend(last);
    apply(name, &values, state)
}

fn apply(name: &str, v: &[Value], state: &State<'_, '_>) -> Step {
    if name == "eq" && v.len() < 2 {
        return Err("missing argument for comparison".into());
    }
    let known = v.iter().all(|v| !matches!(v, Value::Unknown { .. }));
    Ok(match name {
        "not" => v[0].truth().map_or(Value::ANY, |t| Value::Bool(!t)),
        "len" => return length(&v[0]),
        "index" => return index(&v[0], &v[1..], state),
        "slice" => return slice(&v[0], &v[1..]),
        "eq" | "ne" if known => {
            let mut equal = false;
            for other in &v[1..] {
                match eq(&v[0], other)? {
                    None => return Ok(Value::ANY),
                    Some(true) => {
                        equal = true;
                        break;
                    }
                    Some(false) => {}
                }
            }
            Value::Bool(equal == (name == "eq"))
        }
        "lt" | "le" | "gt" | "ge" if known => match less(&v[0], &v[1])? {
            None => Value::ANY,
            Some(lt) => {
                let equal = eq(&v[0], &v[1])?.unwrap_or(false);
                Value::Bool(match name {
                    "lt" => lt,
                    "le" => lt || equal,
                    "gt" => !(lt || equal),
                    _ => !lt,
                })
            }
        },
        "print" | "println" | "html" | "js" | "urlquery" if known => {
            // html, js and urlquery print their arguments as an action does (`evalArgs`):
            // nil is the string `<no value>` there, and `<nil>` to Sprint.
            let evaluated = matches!(name, "html" | "js" | "urlquery");
            let Some(text) = sprint(v, name == "println", evaluated) else { return Ok(Value::ANY) };
            match name {
                "html" => Value::Str(html(&text)),
                "js" => js(&text).map_or(Value::ANY, Value::Str),
                "urlquery" => Value::Str(urlquery(&text)),
                _ => Value::Str(text),
            }
        }
        "printf" if known => printf(v).map_or(Value::ANY, Value::Str),
        _ => Value::ANY,
    })
}

/// `length`: strings and the labels have a length; a struct, number or bool fails.
fn length(v: &Value) -> Step {
    match v {
        Value::Str(s) => Ok(Value::Int(s.len() as i64)),
        Value::Int(_) | Value::Float(_) | Value::Bool(_) | Value::Data | Value::PodMeta | Value::PodSpec => {
            Err(format!("len of type {}", v.go_type().trim_start_matches('*')))
        }
        Value::Absent => Err("len of nil".into()),
        _ => Ok(Value::ANY),
    }
}

/// `index`: the labels by a string key (a missing key gives `""`, the zero value), a string
/// by a byte offset; the manager's structs cannot be indexed.
fn index(item: &Value, indexes: &[Value], state: &State<'_, '_>) -> Step {
    if *item == Value::Absent {
        return Err("index of untyped nil".into());
    }
    let Some((first, rest)) = indexes.split_first() else { return Ok(item.clone()) };
    let next = match (item, first) {
        (Value::Data | Value::PodMeta | Value::PodSpec, _) => {
            return Err(format!("can't index item of type {}", item.go_type().trim_start_matches('*')));
        }
        (Value::Int(_) | Value::Float(_) | Value::Bool(_), _) => {
            return Err(format!("can't index item of type {}", item.go_type()));
        }
        (Value::Labels, Value::Str(key)) => match fields::label(key, state.data) {
            Value::Absent => Value::Str(String::new()),
            found => found,
        },
        (Value::Str(s), Value::Int(i)) => match usize::try_from(*i).ok().filter(|i| *i < s.len()) {
            Some(i) => Value::Int(i64::from(s.as_bytes()[i])),
            None => return Err(format!("index out of range: {i}")),
        },
        (Value::Str(_), Value::Str(_) | Value::Bool(_) | Value::Float(_)) => {
            return Err("cannot index slice/array with that type".into());
        }
        _ => return Ok(Value::ANY),
    };
    index(&next, rest, state)
}

/// `slice` of a string by byte offsets.
fn slice(item: &Value, indexes: &[Value]) -> Step {
    match item {
        Value::Absent => return Err("slice of untyped nil".into()),
        Value::Data | Value::PodMeta | Value::PodSpec | Value::Int(_) | Value::Float(_) | Value::Bool(_) => {
            return Err(format!("can't slice item of type {}", item.go_type()));
        }
        _ => {}
    }
    if indexes.len() > 3 {
        return Err(format!("too many slice indexes: {}", indexes.len()));
    }
    let Value::Str(s) = item else { return Ok(Value::ANY) };
    if indexes.len() == 3 {
        return Err("cannot 3-index slice a string".into());
    }
    let mut idx = [0, s.len()];
    for (i, index) in indexes.iter().enumerate() {
        match index {
            Value::Int(x) => match usize::try_from(*x).ok().filter(|x| *x <= s.len()) {
                Some(x) => idx[i] = x,
                None => return Err(format!("index out of range: {x}")),
            },
            Value::Unknown { .. } => return Ok(Value::ANY),
            _ => return Err("cannot index slice/array with that type".into()),
        }
    }
    if idx[0] > idx[1] {
        return Err(format!("invalid slice index: {} > {}", idx[0], idx[1]));
    }
    Ok(String::from_utf8(s.as_bytes()[idx[0]..idx[1]].to_vec()).map_or(Value::ANY, Value::Str))
}

/// `eq` of two settled values: `None` when the model does not compare them.
fn eq(a: &Value, b: &Value) -> Result<Option<bool>, String> {
    Ok(Some(match (a, b) {
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Float(x), Value::Float(y)) => x == y,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Absent, Value::Absent) => true,
        // A missing value equals no settled basic value.
        (Value::Absent, Value::Str(_) | Value::Int(_) | Value::Float(_) | Value::Bool(_))
        | (Value::Str(_) | Value::Int(_) | Value::Float(_) | Value::Bool(_), Value::Absent) => false,
        (
            Value::Str(_) | Value::Int(_) | Value::Float(_) | Value::Bool(_),
            Value::Str(_) | Value::Int(_) | Value::Float(_) | Value::Bool(_),
        ) => {
            return Err(format!("incompatible types for comparison: {} and {}", a.go_type(), b.go_type()));
        }
        _ => return Ok(None),
    }))
}

/// `lt` of two settled values.
fn less(a: &Value, b: &Value) -> Result<Option<bool>, String> {
    Ok(Some(match (a, b) {
        (Value::Str(x), Value::Str(y)) => x < y,
        (Value::Int(x), Value::Int(y)) => x < y,
        (Value::Float(x), Value::Float(y)) => x < y,
        (Value::Bool(_), Value::Bool(_)) | (Value::Absent, _) | (_, Value::Absent) => {
            return Err("invalid type for comparison".into());
        }
        (
            Value::Str(_) | Value::Int(_) | Value::Float(_) | Value::Bool(_),
            Value::Str(_) | Value::Int(_) | Value::Float(_) | Value::Bool(_),
        ) => {
            return Err(format!("incompatible types for comparison: {} and {}", a.go_type(), b.go_type()));
        }
        _ => return Ok(None),
    }))
}

/// `fmt.Sprint` (or `Sprintln`) of settled operands.
fn sprint(v: &[Value], line: bool, evaluated: bool) -> Option<String> {
    let mut out = String::new();
    let mut previous_string = true;
    for (i, value) in v.iter().enumerate() {
        let (text, is_string) = match value {
            Value::Absent if evaluated => (super::NO_VALUE.to_string(), true),
            other => other.sprinted()?,
        };
        if i > 0 && (line || !is_string && !previous_string) {
            out.push(' ');
        }
        out.push_str(&text);
        previous_string = is_string;
    }
    if line {
        out.push('\n');
    }
    Some(out)
}

/// `fmt.Sprintf` for the verbs this model reproduces; `None` for any other.
fn printf(v: &[Value]) -> Option<String> {
    let Value::Str(format) = &v[0] else { return None };
    let mut args = v[1..].iter();
    let mut out = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let verb = chars.next()?;
        if verb == '%' {
            out.push('%');
            continue;
        }
        let arg = args.next()?;
        match (verb, arg) {
            ('s' | 'v', Value::Str(s)) => out.push_str(s),
            ('d' | 'v', Value::Int(i)) => out.push_str(&i.to_string()),
            ('t' | 'v', Value::Bool(b)) => out.push_str(&b.to_string()),
            ('v', Value::Float(f)) => out.push_str(&number::format_float(*f)),
            _ => return None,
        }
    }
    args.next().is_none().then_some(out)
}

/// `HTMLEscapeString`.
fn html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\0' => out.push('\u{FFFD}'),
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// `JSEscapeString` for ASCII text (other runes depend on Unicode's printable set: `None`).
fn js(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '<' => out.push_str("\\u003C"),
            '>' => out.push_str("\\u003E"),
            '&' => out.push_str("\\u0026"),
            '=' => out.push_str("\\u003D"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u00{:02X}", c as u32)),
            c if c.is_ascii() => out.push(c),
            _ => return None,
        }
    }
    Some(out)
}

/// `url.QueryEscape`.
fn urlquery(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(b as char),
            b' ' => out.push('+'),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}
