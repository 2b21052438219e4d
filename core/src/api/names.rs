//! Kubernetes name and label rules (DNS-1123 labels and subdomains, label values,
//! qualified label keys). Each check returns why a value is invalid, for messages.

use crate::api::value::Value;

/// The service account a pod runs as when its spec names none.
pub const DEFAULT_SERVICE_ACCOUNT: &str = "default";

fn is_alnum_lower(c: u8) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

/// A DNS-1123 label: 1 to 63 of `[a-z0-9-]`, starting and ending alphanumeric.
pub fn dns1123_label(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Err("must not be empty".into());
    }
    if s.len() > 63 {
        return Err(format!("must be at most 63 characters, has {}", s.len()));
    }
    let b = s.as_bytes();
    let ok_chars = b.iter().all(|&c| is_alnum_lower(c) || c == b'-');
    if !ok_chars || !is_alnum_lower(b[0]) || !is_alnum_lower(b[b.len() - 1]) {
        return Err("must be a DNS-1123 label: lowercase letters, digits and '-', \
                    starting and ending with a letter or digit"
            .into());
    }
    Ok(())
}

/// A DNS-1123 subdomain: at most 253 characters, dot-separated DNS-1123 labels.
pub fn dns1123_subdomain(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Err("must not be empty".into());
    }
    if s.len() > 253 {
        return Err(format!("must be at most 253 characters, has {}", s.len()));
    }
    let valid = s.split('.').all(|part| {
        let b = part.as_bytes();
        !b.is_empty()
            && b.iter().all(|&c| is_alnum_lower(c) || c == b'-')
            && is_alnum_lower(b[0])
            && is_alnum_lower(b[b.len() - 1])
    });
    if !valid {
        return Err("must be a DNS-1123 subdomain: lowercase letters, digits, '-' and '.', \
                    each dot-separated part starting and ending with a letter or digit"
            .into());
    }
    Ok(())
}

fn is_label_body(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'_' || c == b'.'
}

/// A non-empty label value: 1 to 63 characters matching
/// `^[A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9])?$` (so no surrounding whitespace).
pub fn label_value(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Err("must not be empty".into());
    }
    if s.trim() != s {
        return Err("must not have leading or trailing whitespace".into());
    }
    if s.len() > 63 {
        return Err(format!("must be at most 63 characters, has {}", s.len()));
    }
    name_part(s).map_err(|_| {
        "must consist of letters, digits, '-', '_' or '.', \
         starting and ending with a letter or digit"
            .into()
    })
}

fn name_part(s: &str) -> Result<(), ()> {
    let b = s.as_bytes();
    if b.is_empty()
        || !b.iter().all(|&c| is_label_body(c))
        || !b[0].is_ascii_alphanumeric()
        || !b[b.len() - 1].is_ascii_alphanumeric()
    {
        return Err(());
    }
    Ok(())
}

/// A qualified label key: an optional DNS-1123 subdomain prefix and `/`, then a name of
/// 1 to 63 characters matching `^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`.
pub fn qualified_name(s: &str) -> Result<(), String> {
    let (prefix, name) = match s.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, s),
    };
    if let Some(prefix) = prefix {
        dns1123_subdomain(prefix).map_err(|e| format!("prefix {prefix:?} {e}"))?;
    }
    if name.is_empty() {
        return Err("name part must not be empty".into());
    }
    if name.len() > 63 {
        return Err(format!("name part must be at most 63 characters, has {}", name.len()));
    }
    name_part(name).map_err(|_| {
        "name part must consist of letters, digits, '-', '_' or '.', \
         starting and ending with a letter or digit"
            .into()
    })
}

/// Why the API server refuses the label `key: value` (apimachinery `ValidateLabels`: the key a
/// qualified name, the value empty or a valid label value).
pub fn label_refusal(key: &str, value: &str) -> Option<String> {
    if let Err(e) = qualified_name(key) {
        return Some(format!("label key {key:?}: {e}"));
    }
    // An empty value is a valid label value.
    let checked = if value.is_empty() { Ok(()) } else { label_value(value) };
    checked.err().map(|e| format!("label value {value:?} of {key}: {e}"))
}

/// The first label of a `labels` mapping the API server refuses, and why. A value that is no
/// string (but null, which decodes as empty) cannot be decoded into a label at all. A
/// `labels` that is no mapping is not judged here.
pub fn labels_refusal(labels: Option<&Value>) -> Option<(&str, String)> {
    let labels = labels.and_then(Value::as_object)?;
    labels.iter().find_map(|(key, value)| {
        let why = match value {
            Value::String(v) => label_refusal(key, v),
            Value::Null => label_refusal(key, ""),
            _ => Some(format!("the value of {key} is no string")),
        };
        why.map(|why| (key, why))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A valid subdomain of exactly `len` characters: 63-character labels, then the rest.
    fn subdomain_of(len: usize) -> String {
        let mut out = String::new();
        while out.len() < len {
            if !out.is_empty() {
                out.push('.');
            }
            let part = (len - out.len()).min(63);
            out.push_str(&"a".repeat(part));
        }
        assert_eq!(out.len(), len);
        out
    }

    #[test]
    fn limits_are_exact() {
        assert!(dns1123_subdomain(&subdomain_of(253)).is_ok());
        assert_eq!(
            dns1123_subdomain(&subdomain_of(254)).unwrap_err(),
            "must be at most 253 characters, has 254"
        );
        assert!(dns1123_label(&"a".repeat(63)).is_ok());
        assert_eq!(dns1123_label(&"a".repeat(64)).unwrap_err(), "must be at most 63 characters, has 64");
        assert!(label_value(&"a".repeat(63)).is_ok());
        assert_eq!(label_value(&"a".repeat(64)).unwrap_err(), "must be at most 63 characters, has 64");
        assert!(qualified_name(&"a".repeat(63)).is_ok());
        assert_eq!(
            qualified_name(&"a".repeat(64)).unwrap_err(),
            "name part must be at most 63 characters, has 64"
        );
        assert!(qualified_name(&format!("{}/{}", subdomain_of(253), "a".repeat(63))).is_ok());
        assert!(qualified_name(&format!("{}/a", subdomain_of(254))).unwrap_err().contains("at most 253"));
    }

    #[test]
    fn one_character_values() {
        assert!(dns1123_label("a").is_ok());
        assert!(dns1123_subdomain("a").is_ok());
        assert!(label_value("a").is_ok());
        assert!(qualified_name("a").is_ok());
        assert!(qualified_name("a/b").is_ok());
    }

    #[test]
    fn labels() {
        assert!(dns1123_label("kleym-reference-inference").is_ok());
        assert!(dns1123_label(&"a".repeat(63)).is_ok());
        for bad in ["", "-a", "a-", "A", "a.b", "a_b", &"a".repeat(64)] {
            assert!(dns1123_label(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn subdomains() {
        assert!(dns1123_subdomain("a.b-c.d").is_ok());
        assert!(dns1123_subdomain(&format!("{}.{}", "a".repeat(63), "b".repeat(63))).is_ok());
        for bad in ["", "a..b", ".a", "a.", "a/b", "a:b", "Ab", &"a".repeat(254)] {
            assert!(dns1123_subdomain(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn label_values() {
        for good in ["prefill", "A_b.c-1", "x"] {
            assert!(label_value(good).is_ok(), "{good:?}");
        }
        for bad in ["", " a", "a ", "-a", "a_", "a/b", "a:b", &"a".repeat(64)] {
            assert!(label_value(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn qualified_names() {
        for good in ["app", "identity.kleym.sonda.red/variant", "a_B.c"] {
            assert!(qualified_name(good).is_ok(), "{good:?}");
        }
        for bad in ["", "/a", "a/", "A.b/c", "a/b/c", "-a", "a:b", &"a".repeat(64)] {
            assert!(qualified_name(bad).is_err(), "{bad:?}");
        }
    }
}
