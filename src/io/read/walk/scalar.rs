//! How a scalar reads: a string, a value every YAML reader reads alike, or one a YAML 1.1
//! reader could read otherwise, which the walk leaves to the full reader.

use crate::api::value::{Number, Value};
use serde_saphyr::granit_parser::ScalarStyle;
use std::borrow::Cow;

/// How a scalar reads.
pub(super) enum Scalar {
    /// A string, as written: any quoted scalar, and a plain one no YAML reader types.
    Text,
    /// A plain scalar with another value (a null, a boolean, a number), the same to every
    /// YAML reader.
    Typed(Value),
    /// A plain scalar YAML 1.1 and this function could read differently: the full reader
    /// reads the item.
    Doubtful,
}

impl Scalar {
    pub(super) fn of(text: &str, style: ScalarStyle) -> Scalar {
        if style != ScalarStyle::Plain {
            return Scalar::Text;
        }
        match text {
            "" | "~" | "null" => return Scalar::Typed(Value::Null),
            "true" => return Scalar::Typed(Value::Bool(true)),
            "false" => return Scalar::Typed(Value::Bool(false)),
            _ => {}
        }
        if is_integer(text) {
            return text.parse::<i64>().map_or(Scalar::Doubtful, |n| Scalar::Typed(Value::Number(n.into())));
        }
        if is_decimal(text) {
            let number = text.parse::<f64>().ok().and_then(Number::from_f64);
            return number.map_or(Scalar::Doubtful, |n| Scalar::Typed(Value::Number(n)));
        }
        if is_plain_string(text) { Scalar::Text } else { Scalar::Doubtful }
    }
}

/// A mapping key as a JSON string, when it is one for certain.
pub(super) fn string_key(text: Cow<'_, str>, style: ScalarStyle) -> Option<Cow<'_, str>> {
    let plain_ok = style != ScalarStyle::Plain || is_plain_string(&text) || is_integer(&text);
    plain_ok.then_some(text)
}

/// Whether kubectl (YAML 1.1 through go-yaml v2, then JSON) reads the plain scalar `text`
/// as the full reader reads it: the same value, or, as a mapping key, the same JSON string.
/// Strings to both are known at once: any plain scalar [`Scalar::of`] does not doubt, and a
/// doubted one holding a character no number holds that is no YAML 1.1 word and no `.inf`
/// or `.nan`. The rest (a
/// number of another spelling, a word in another case) is read both ways and compared.
pub(super) fn kubectl_agrees(text: &str, read: &Scalar, key: bool) -> bool {
    let doubted = if key {
        string_key(Cow::Borrowed(text), ScalarStyle::Plain).is_none()
    } else {
        matches!(read, Scalar::Doubtful)
    };
    let special = text == "~"
        || matches!(text.trim_start_matches(['+', '-']).to_ascii_lowercase().as_str(), ".inf" | ".nan");
    if !doubted || !is_word(text) && !special && text.bytes().any(|b| !is_number_byte(b)) {
        return true;
    }
    let kubectl = crate::yaml::yaml11::resolve(text);
    if key {
        let theirs = kubectl.json_key(text);
        theirs.is_some() && theirs == crate::yaml::plain_key(text)
    } else {
        match (kubectl.json_value(text), crate::yaml::plain_value(text)) {
            (Some(theirs), Some(ours)) => same_json(&theirs, &ours),
            _ => false,
        }
    }
}

/// A byte some number spelling holds, to go-yaml v2 or to the full reader: digits, signs,
/// `.`, `_`, hex digits (`e` and `b` among them) and the `x` and `o` of a base prefix.
fn is_number_byte(b: u8) -> bool {
    b.is_ascii_hexdigit() || matches!(b, b'+' | b'-' | b'.' | b'_' | b'x' | b'X' | b'o' | b'O')
}

fn is_word(text: &str) -> bool {
    text.len() <= 8 && WORDS.iter().any(|w| w.eq_ignore_ascii_case(text))
}

/// Equal as JSON values: numbers by value, as the API server reads them (`1e3` and `1000`).
fn same_json(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value as V;
    match (a, b) {
        (V::Number(x), V::Number(y)) => match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
            (Some(x), Some(y), ..) => x == y,
            (.., Some(x), Some(y)) => x == y,
            _ => x.as_f64() == y.as_f64(),
        },
        _ => a == b,
    }
}

/// A key or value of a label mapping, written plain, that kubectl and Argo CD (YAML 1.1, then
/// JSON) take as a string other than the one this function reads, or that the cluster stores
/// otherwise than it applies it (docs/yaml.md#label-keys-and-values):
/// - a key that is a boolean or null word in any case, or a number other than a plain decimal
///   integer (`y`, `010`, `1e3`, `1.0`, `0o10`): YAML 1.1 and YAML 1.2 spell its number
///   differently, or type it differently;
/// - in `labels` (an object's own labels, a pod template's), a value that is nothing or a
///   null word: the API server stores a label with the empty value when kubectl creates the
///   object and none once kubectl applies it again (its patch deletes a key set to null).
///
/// - a value that is a string to YAML 1.2 readers and no string to YAML 1.1 ones, or another
///   string ([`yaml12_string`]): `kpt live apply` (kyaml over yaml.v3) applies a label that
///   kubectl reads as a boolean, and the pods may carry it.
///
/// Any other value that is no string here is none to kubectl or kpt either: the API server
/// refuses such an object, so the function may treat the label as absent. A null value under
/// `matchLabels` or a flat `selector` is no label: the API server drops it from a custom
/// resource (`PruneNonNullableNullsWithoutDefaults`), and the rules read it so.
pub(super) fn label_doubt(text: &str, style: ScalarStyle, key: bool, nulls: bool) -> bool {
    if style != ScalarStyle::Plain {
        return false;
    }
    if !key {
        return nulls && matches!(text, "" | "~" | "null" | "Null" | "NULL") || yaml12_string(text);
    }
    !is_integer(text) && (text.is_empty() || text == "~" || is_word(text) || is_number_like(text))
}

/// A plain value yaml.v3 (YAML 1.2's core schema, what `kpt live apply` reads through kyaml)
/// and go-yaml v2 (YAML 1.1, kubectl's) type differently: a word go-yaml v2 reads as a
/// boolean and yaml.v3 as a string (`y`, `yes`, `n`, `no`, `on`, `off`, any case: yaml.v3
/// `resolve.go`, `init`, holds only `true` and `false` among them; other cases are strings to
/// both and a boolean to this function), and a date (`2024-01-31`), which go-yaml v2 keeps as
/// its text and yaml.v3 reads as a timestamp (`resolve`, `parseTimestamp`), written back as
/// another string. Numbers are numbers to both (`strconv.ParseInt` with base 0 in each).
pub(super) fn yaml12_string(text: &str) -> bool {
    // Asked of every plain scalar: the words are three letters at most, a date opens with a
    // digit and is ten characters at most.
    if text.len() <= 3 {
        return ["y", "yes", "n", "no", "on", "off"].iter().any(|w| w.eq_ignore_ascii_case(text));
    }
    if text.len() > 10 || !text.as_bytes()[0].is_ascii_digit() {
        return false;
    }
    let mut parts = text.split('-');
    [(4, 4), (1, 2), (1, 2)].iter().all(|&(least, most)| {
        parts
            .next()
            .is_some_and(|p| (least..=most).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()))
    }) && parts.next().is_none()
}

/// A number to some YAML reader: signed or not, `0x`/`0o`/`0b` digits, `.inf`, `.nan`, or
/// digits with `_`, `.`, `:` (YAML 1.1's base 60) and an exponent.
fn is_number_like(text: &str) -> bool {
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let lower = unsigned.to_ascii_lowercase();
    if matches!(lower.as_str(), ".inf" | ".nan") {
        return true;
    }
    let radix =
        [("0x", 16), ("0o", 8), ("0b", 2)].into_iter().find_map(|(p, r)| Some((lower.strip_prefix(p)?, r)));
    if let Some((digits, radix)) = radix {
        return !digits.is_empty() && digits.chars().all(|c| c == '_' || c.is_digit(radix));
    }
    let (mantissa, exponent) = match lower.split_once('e') {
        Some((m, e)) => (m, Some(e.strip_prefix(['+', '-']).unwrap_or(e))),
        None => (lower.as_str(), None),
    };
    let digits_ok = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    mantissa.bytes().any(|b| b.is_ascii_digit())
        && mantissa.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'_' | b'.' | b':'))
        && exponent.is_none_or(digits_ok)
}

/// `0` or a decimal integer without leading zeros that fits an `i64`: the same number to
/// every YAML reader, and written the same way as a JSON key.
pub(super) fn is_integer(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let canonical = digits == "0" && text == "0" || !digits.is_empty() && !digits.starts_with('0');
    canonical && digits.len() <= 18 && digits.bytes().all(|b| b.is_ascii_digit())
}

/// `1.5`, `-0.25`: a float to every YAML reader.
fn is_decimal(text: &str) -> bool {
    let unsigned = text.strip_prefix('-').unwrap_or(text);
    let Some((whole, fraction)) = unsigned.split_once('.') else { return false };
    let plain_digits = |s: &str| !s.is_empty() && s.len() <= 15 && s.bytes().all(|b| b.is_ascii_digit());
    plain_digits(whole) && plain_digits(fraction) && (whole == "0" || !whole.starts_with('0'))
}

/// Words YAML 1.1 reads as booleans, nulls or floats (in any case), and spellings of
/// special floats some readers accept.
const WORDS: [&str; 12] =
    ["y", "yes", "n", "no", "true", "false", "on", "off", "null", "nan", "inf", "infinity"];

/// A plain scalar that is a string to every YAML reader: it starts with a letter, `/`,
/// `_`, `$` or a non-ASCII character (numbers, timestamps, `.inf`, `~`, `<<` and `=` all
/// start otherwise), and it is not one of [`WORDS`].
fn is_plain_string(text: &str) -> bool {
    let Some(first) = text.chars().next() else { return false };
    let starts_well = first.is_ascii_alphabetic() || matches!(first, '/' | '_' | '$') || !first.is_ascii();
    starts_well && !is_word(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the full reader reads `text` as, as the value of a key.
    fn full(text: &str) -> Value {
        crate::yaml::parse(&format!("k: {text}\n")).unwrap()["k"].clone().into()
    }

    fn of(text: &str) -> Scalar {
        Scalar::of(text, ScalarStyle::Plain)
    }

    #[test]
    fn typed_scalars_are_the_full_readers_values() {
        for text in ["", "~", "null", "true", "false", "0", "7", "-7", "123456789012345678", "1.5", "-0.25"] {
            match of(text) {
                Scalar::Typed(value) => assert_eq!(value, full(text), "{text:?}"),
                _ => panic!("{text:?} is typed"),
            }
        }
    }

    #[test]
    fn strings_are_strings_to_every_reader() {
        for text in ["web", "Web-1", "/path", "_x", "$HOME", "ü", "yesterday", "nullable", "a:b", "inference"]
        {
            assert!(matches!(of(text), Scalar::Text), "{text:?}");
            assert_eq!(full(text), Value::String(text.into()), "{text:?}");
        }
        for style in [ScalarStyle::SingleQuoted, ScalarStyle::DoubleQuoted, ScalarStyle::Literal] {
            assert!(matches!(Scalar::of("on", style), Scalar::Text));
        }
    }

    /// YAML 1.1 words in any case, numbers of other spellings and past the bounds read
    /// here, and anything not starting as a string does: the full reader reads those.
    #[test]
    fn lookalikes_are_doubtful() {
        for text in [
            "on",
            "Off",
            "YES",
            "n",
            "y",
            "NULL",
            "True",
            "nan",
            "Inf",
            "infinity",
            "010",
            "-0",
            "00",
            "+1",
            "1234567890123456789",
            "0x1f",
            "1e3",
            "1_000",
            ".5",
            "5.",
            "01.5",
            "1234567890123456.5",
            "1.1234567890123456",
            "2024-01-01",
            ".inf",
            "<<",
            "=",
            "-",
            "1:20",
        ] {
            assert!(matches!(of(text), Scalar::Doubtful), "{text:?}");
        }
        assert!(matches!(of("0.5"), Scalar::Typed(_)));
        assert!(matches!(of("123456789012345.5"), Scalar::Typed(_)), "fifteen digits");
        assert!(matches!(of("infinitely"), Scalar::Text), "longer than the words");
    }

    #[test]
    fn label_doubts_are_the_scalars_kubectl_reads_as_other_strings() {
        let doubt = |text: &str, key| label_doubt(text, ScalarStyle::Plain, key, true);
        for key in [
            "on", "Off", "YES", "n", "y", "null", "True", "010", "1e3", "1E+3", "1.0", "0x1F", "0o10",
            "0b101", "1_000", "+1", ".inf", "-.Inf", ".NaN", "1:20", ".5",
        ] {
            assert!(doubt(key, true), "key {key:?}");
        }
        for key in ["7", "-5", "web", "2001-12-14", "1-a", "v1.0", "app.kubernetes.io/name", "0x", "e3", "1e"]
        {
            assert!(!doubt(key, true), "key {key:?}");
        }
        for value in ["", "~", "null", "NULL"] {
            assert!(doubt(value, false), "value {value:?}");
            assert!(
                !label_doubt(value, ScalarStyle::Plain, false, false),
                "{value:?}: no label in a selector"
            );
        }
        for value in [
            "true",
            "False",
            "010",
            "0o10",
            "1e3",
            "7",
            "web",
            "0o",
            "0oz",
            "nullable",
            "2024-1",
            "20240-1-1",
        ] {
            assert!(!doubt(value, false), "value {value:?}: the same to kubectl and kpt");
        }
        for value in ["on", "Off", "YES", "yEs", "y", "N", "no", "2024-01-31", "2024-1-2"] {
            assert!(doubt(value, false), "value {value:?}: a string to kpt, no string or another to kubectl");
            assert!(label_doubt(value, ScalarStyle::Plain, false, false), "{value:?}: in a selector too");
        }
        assert!(
            !label_doubt("010", ScalarStyle::DoubleQuoted, true, true),
            "quoted is a string to every reader"
        );
        assert!(!label_doubt("", ScalarStyle::SingleQuoted, false, true));
    }

    /// kubectl's readings, by the oracle of tests/integration/yaml_oracle.rs: `yEs` is a
    /// string to it and a boolean here, `0X1F` 31 to it and a string here, `1__0` 10 and a
    /// string; `1e3` is 1000 to both, and `0644` 420.
    #[test]
    fn kubectl_agrees_where_both_read_one_value() {
        let agrees = |text: &str, key| kubectl_agrees(text, &Scalar::of(text, ScalarStyle::Plain), key);
        for text in [
            "web",
            "100m",
            "128Mi",
            "--port=8000",
            "10.0.0.0/8",
            "1.2.3",
            "yes",
            "On",
            "1e3",
            "0644",
            "0o10",
            "1_000",
            "2001-12-14",
            "7",
            "",
            "~",
            "+1",
        ] {
            assert!(agrees(text, false), "value {text:?}");
        }
        for text in ["yEs", "tRUE", "0X1F", "0O10", "1__0", "1_", "1_0.5", ".inf", "-.Inf", ".NaN", "0b-1"] {
            assert!(!agrees(text, false), "value {text:?}");
        }
        for text in ["web", "7", "-5", "yes", "on", "010", "-x", "2001-12-14"] {
            assert!(agrees(text, true), "key {text:?}");
        }
        for text in ["yEs", "1.5", "1e3", "1.0", "18446744073709551615", "0X1F", "~"] {
            assert!(!agrees(text, true), "key {text:?}");
        }
    }

    #[test]
    fn keys_are_strings_when_every_reader_reads_them_so() {
        let key = |text: &str, style| string_key(Cow::Borrowed(text), style).map(Cow::into_owned);
        assert_eq!(key("name", ScalarStyle::Plain).as_deref(), Some("name"));
        assert_eq!(key("8080", ScalarStyle::Plain).as_deref(), Some("8080"));
        assert_eq!(key("on", ScalarStyle::DoubleQuoted).as_deref(), Some("on"));
        for doubtful in ["on", "1.5", "010", "~", ""] {
            assert_eq!(key(doubtful, ScalarStyle::Plain), None, "{doubtful:?}");
        }
    }
}
