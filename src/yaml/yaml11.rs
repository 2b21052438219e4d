//! How kubectl types a plain scalar: go-yaml v2's resolver (`resolve.go`, `resolve`), as
//! sigs.k8s.io/yaml v1.6.0 reads YAML (through go-yaml v2, YAML 1.1) and converts it to JSON
//! (`yaml.go`, `convertToJSONableObject`, then `encoding/json`). The reader compares it with
//! its own reading of every plain scalar it cannot vouch for, and refuses where they differ
//! (docs/yaml.md#held-to-kubectls-reader). Written from those sources, not copied.

/// What go-yaml v2 resolves an untagged plain scalar to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Plain {
    Null,
    Bool(bool),
    /// An integer that fits 64 signed bits (Go's `int` on a 64-bit machine).
    Int(i64),
    /// An integer past `i64::MAX` up to `u64::MAX`.
    Uint(u64),
    Float(f64),
    /// A string: the scalar's own text (timestamps too: decoded into an `interface{}`,
    /// go-yaml v2 keeps their text, `decode.go`, `scalar`).
    Str,
    /// `<<`, a merge key in a key's place.
    Merge,
}

/// The plain scalar `text` as go-yaml v2 resolves it (`resolve.go`, `resolve`, with no tag).
pub fn resolve(text: &str) -> Plain {
    if let Some(word) = word(text) {
        return word;
    }
    match text.as_bytes().first() {
        // Not in the map (checked above): a float, or a string.
        Some(b'.') => decimal_float(text).map_or(Plain::Str, Plain::Float),
        Some(b'+' | b'-' | b'0'..=b'9') => number(text),
        _ => Plain::Str,
    }
}

/// The spellings go-yaml v2 looks up in its map before anything else (`resolve.go`, `init`).
fn word(text: &str) -> Option<Plain> {
    Some(match text {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            Plain::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            Plain::Bool(false)
        }
        "" | "~" | "null" | "Null" | "NULL" => Plain::Null,
        ".nan" | ".NaN" | ".NAN" => Plain::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Plain::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Plain::Float(f64::NEG_INFINITY),
        "<<" => Plain::Merge,
        _ => return None,
    })
}

/// A scalar opening with a sign or a digit: `resolve`'s `'D', 'S'` case. Timestamps are
/// left out: they open with four digits and a `-`, which no number holds, so they are
/// strings either way.
fn number(text: &str) -> Plain {
    let plain: String = text.chars().filter(|&c| c != '_').collect();
    if let Some(n) = parse_int(&plain) {
        return Plain::Int(n);
    }
    if let Some(n) = parse_uint(&plain, 0) {
        return Plain::Uint(n);
    }
    if is_yaml_style_float(&plain)
        && let Some(f) = finite(&plain)
    {
        return Plain::Float(f);
    }
    // go-yaml v2 tries binary digits once more in base 2, a sign after `0b` allowed.
    if let Some(digits) = plain.strip_prefix("0b") {
        if let Some(n) = parse_int_in(digits, 2) {
            return Plain::Int(n);
        }
        if let Some(n) = parse_uint(digits, 2) {
            return Plain::Uint(n);
        }
    } else if let Some(digits) = plain.strip_prefix("-0b")
        && let Some(n) = parse_int_in(&format!("-{digits}"), 2)
    {
        return Plain::Int(n);
    }
    Plain::Str
}

/// Go's `strconv.ParseInt(s, 0, 64)`.
fn parse_int(s: &str) -> Option<i64> {
    parse_int_in(s, 0)
}

/// Go's `strconv.ParseInt(s, base, 64)`: a sign, then what [`parse_uint`] reads, within
/// `i64`.
fn parse_int_in(s: &str, base: u32) -> Option<i64> {
    let (negative, rest) = match s.as_bytes().first()? {
        b'+' => (false, &s[1..]),
        b'-' => (true, &s[1..]),
        _ => (false, s),
    };
    parse_signed(rest, base, negative)
}

/// An unsigned magnitude in `base` (0: from its prefix), signed and held to `i64`.
fn parse_signed(digits: &str, base: u32, negative: bool) -> Option<i64> {
    let magnitude = parse_uint(digits, base)?;
    if negative { 0i64.checked_sub_unsigned(magnitude) } else { i64::try_from(magnitude).ok() }
}

/// Go's `strconv.ParseUint(s, base, 64)` for `base` 0 (the base from a `0b`, `0o`, `0x`
/// prefix in either case, octal after a bare leading `0`, else decimal) or a given base;
/// `s` holds no `_` (go-yaml v2 drops them first).
fn parse_uint(s: &str, base: u32) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let (base, digits) = match s.strip_prefix('0') {
        _ if base != 0 => (base, s),
        Some(rest) => {
            let prefixed = |p: u8| rest.len() >= 2 && rest.as_bytes()[0].eq_ignore_ascii_case(&p);
            match [b'b', b'o', b'x'].into_iter().zip([2, 8, 16]).find(|(p, _)| prefixed(*p)) {
                Some((_, base)) => (base, &rest[1..]),
                None => (8, rest),
            }
        }
        None => (10, s),
    };
    let mut n: u64 = 0;
    for c in digits.chars() {
        let d = c.to_digit(36).filter(|&d| d < base)?;
        n = n.checked_mul(u64::from(base))?.checked_add(u64::from(d))?;
    }
    Some(n)
}

/// go-yaml v2's `yamlStyleFloat`: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_style_float(s: &str) -> bool {
    let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    let mantissa = if let Some(fraction) = s.strip_prefix('.') {
        let n = digits(fraction);
        if n == 0 {
            return false;
        }
        1 + n
    } else {
        let whole = digits(s);
        if whole == 0 {
            return false;
        }
        match s[whole..].strip_prefix('.') {
            Some(fraction) => whole + 1 + digits(fraction),
            None => whole,
        }
    };
    let exponent = &s[mantissa..];
    if exponent.is_empty() {
        return true;
    }
    let Some(power) = exponent.strip_prefix(['e', 'E']) else { return false };
    let power = power.strip_prefix(['+', '-']).unwrap_or(power);
    !power.is_empty() && digits(power) == power.len()
}

/// A scalar opening with `.` that is no word: Go's `strconv.ParseFloat` reads only the
/// decimal forms `.5`, `.5e3` of it (no sign, no `_` without a base prefix, no `inf`).
fn decimal_float(text: &str) -> Option<f64> {
    if is_yaml_style_float(text) { finite(text) } else { None }
}

/// The value of a decimal float spelling, as Go's `ParseFloat` gives it; `None` past the
/// range of `f64`, where Go returns an error (go-yaml v2 then keeps the text).
fn finite(s: &str) -> Option<f64> {
    s.parse::<f64>().ok().filter(|f| f.is_finite())
}

impl Plain {
    /// The JSON sigs.k8s.io/yaml gives it as a value: `None` where `encoding/json` refuses
    /// it (NaN and the infinities), which makes kubectl refuse the file.
    pub fn json_value(self, text: &str) -> Option<serde_json::Value> {
        use serde_json::Value;
        Some(match self {
            Plain::Null => Value::Null,
            Plain::Bool(b) => Value::Bool(b),
            Plain::Int(n) => Value::from(n),
            Plain::Uint(n) => Value::from(n),
            Plain::Float(f) => Value::Number(serde_json::Number::from_f64(f)?),
            Plain::Str | Plain::Merge => Value::String(text.to_string()),
        })
    }

    /// The JSON string sigs.k8s.io/yaml gives it as a mapping key (`convertToJSONableObject`:
    /// `strconv.Itoa` of an int, `true`/`false`); `None` for a null or a `uint64`, which it
    /// refuses, and for a float, which it prints at 32-bit precision (`FormatFloat(k, 'g',
    /// -1, 32)`): this reader refuses float keys rather than spell them so.
    pub fn json_key(self, text: &str) -> Option<String> {
        match self {
            Plain::Bool(b) => Some(b.to_string()),
            Plain::Int(n) => Some(n.to_string()),
            Plain::Str => Some(text.to_string()),
            Plain::Null | Plain::Uint(_) | Plain::Float(_) | Plain::Merge => None,
        }
    }
}

/// The escapes go-yaml v2 reads in a double-quoted scalar (`scannerc.go`,
/// `yaml_parser_scan_flow_scalar`), as the raw text `quoted` (with its quotes) holds them:
/// the first escape it refuses or reads otherwise than YAML 1.2 does, with its offset. It
/// refuses `\/` (YAML 1.2's only addition), and `\x`, `\u`, `\U` codes of a surrogate or
/// past U+10FFFF.
pub fn bad_escape(quoted: &str) -> Option<(usize, String)> {
    let bytes = quoted.as_bytes();
    let mut i = 0;
    while let Some(at) = memchr::memchr(b'\\', &bytes[i..]).map(|n| i + n) {
        let &code = bytes.get(at + 1)?;
        let length = match code {
            b'x' => 2,
            b'u' => 4,
            b'U' => 8,
            b'0' | b'a' | b'b' | b't' | b'\t' | b'n' | b'v' | b'f' | b'r' | b'e' | b' ' | b'"' | b'\''
            | b'\\' | b'N' | b'_' | b'L' | b'P' | b'\n' | b'\r' => 0,
            _ => {
                let end = quoted[at + 1..].chars().next().map_or(at + 1, |c| at + 1 + c.len_utf8());
                return Some((at, quoted[at..end].to_string()));
            }
        };
        let hex = quoted.get(at + 2..at + 2 + length).unwrap_or_default();
        if length > 0
            && hex.len() == length
            && let Ok(value) = u32::from_str_radix(hex, 16)
            && ((0xD800..=0xDFFF).contains(&value) || value > 0x10FFFF)
        {
            return Some((at, quoted[at..at + 2 + length].to_string()));
        }
        i = at + 2 + length.min(hex.len());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What kubectl read for these, by the oracle of tests/integration/yaml_oracle.rs.
    #[test]
    fn plain_scalars_resolve_as_go_yaml_v2_resolves_them() {
        let cases: [(&str, Plain); 37] = [
            ("yes", Plain::Bool(true)),
            ("ON", Plain::Bool(true)),
            ("yEs", Plain::Str),
            ("oN", Plain::Str),
            ("n", Plain::Bool(false)),
            ("", Plain::Null),
            ("nULL", Plain::Str),
            ("010", Plain::Int(8)),
            ("0644", Plain::Int(420)),
            ("09", Plain::Float(9.0)),
            ("0o10", Plain::Int(8)),
            ("0O10", Plain::Int(8)),
            ("0X1F", Plain::Int(31)),
            ("-0x1F", Plain::Int(-31)),
            ("0b101", Plain::Int(5)),
            ("-0b101", Plain::Int(-5)),
            ("1_000", Plain::Int(1000)),
            ("1__0", Plain::Int(10)),
            ("1_", Plain::Int(1)),
            ("_1", Plain::Str),
            ("1_0.5", Plain::Float(10.5)),
            ("1e3", Plain::Float(1000.0)),
            ("1.", Plain::Float(1.0)),
            (".5", Plain::Float(0.5)),
            ("._5", Plain::Str),
            ("+.5", Plain::Float(0.5)),
            ("1e400", Plain::Str),
            ("9223372036854775808", Plain::Uint(9_223_372_036_854_775_808)),
            ("-9223372036854775808", Plain::Int(i64::MIN)),
            ("18446744073709551616", Plain::Float(18_446_744_073_709_551_616.0)),
            ("1:20", Plain::Str),
            ("2001-12-14", Plain::Str),
            ("0x", Plain::Str),
            ("-", Plain::Str),
            ("<<", Plain::Merge),
            ("+1", Plain::Int(1)),
            ("0b-1", Plain::Int(-1)),
        ];
        for (text, want) in cases {
            assert_eq!(resolve(text), want, "{text:?}");
        }
        assert!(matches!(resolve(".NaN"), Plain::Float(f) if f.is_nan()));
        assert_eq!(resolve("-.Inf"), Plain::Float(f64::NEG_INFINITY));
    }

    #[test]
    fn json_keys_and_values_are_what_sigs_yaml_prints() {
        assert_eq!(resolve("1e3").json_value("1e3"), Some(serde_json::json!(1000.0)));
        assert_eq!(resolve(".inf").json_value(".inf"), None, "encoding/json refuses infinities");
        assert_eq!(resolve("010").json_key("010").as_deref(), Some("8"));
        assert_eq!(resolve("yes").json_key("yes").as_deref(), Some("true"));
        for refused in ["~", "18446744073709551615", "1.5", "<<"] {
            assert_eq!(resolve(refused).json_key(refused), None, "{refused:?}");
        }
    }

    #[test]
    fn escapes_go_yaml_v2_does_not_read_as_yaml_1_2_reads_them() {
        assert_eq!(bad_escape(r#""a\/b""#), Some((2, r"\/".to_string())));
        assert_eq!(bad_escape(r#""\ud800""#), Some((1, r"\ud800".to_string())));
        assert_eq!(bad_escape(r#""\U00110000""#), Some((1, r"\U00110000".to_string())));
        assert_eq!(bad_escape(r#""\q""#), Some((1, r"\q".to_string())));
        for fine in [r#""\x41\u00e9\U0001F600""#, r#""\\/""#, r#""\N\_\L\P\e\0\t""#, "\"a\\\n  b\""] {
            assert_eq!(bad_escape(fine), None, "{fine:?}");
        }
    }
}
