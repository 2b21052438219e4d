//! SPIFFE IDs and trust domains as the manager parses them: go-spiffe v2's `spiffeid`
//! package (`FromString` in id.go, `TrustDomainFromString` in trustdomain.go, `ValidatePath`
//! in path.go, built without the `spiffeid_charset_backcompat` tag). Exact in both
//! directions: the scheme is `spiffe://` in lower case, a trust domain holds only lower-case
//! letters, digits, `-`, `.` and `_` (any length), a path only letters, digits, `-`, `.`, `_`
//! and its `/`, with no empty, `.` or `..` segment and no trailing slash. The Rust `spiffe`
//! crate differs (it takes `SPIFFE://`, folds an upper-case trust domain, limits its length),
//! so the model does not use it for what the manager reads.

/// The scheme, as go-spiffe requires it.
pub const SCHEME: &str = "spiffe://";

/// go-spiffe's errors (spiffeid/errors.go), as it words them.
pub const BAD_TRUST_DOMAIN_CHAR: &str =
    "trust domain characters are limited to lowercase letters, numbers, dots, dashes, and underscores";
pub const BAD_PATH_SEGMENT_CHAR: &str =
    "path segment characters are limited to letters, numbers, dots, dashes, and underscores";
pub const DOT_SEGMENT: &str = "path cannot contain dot segments";
pub const EMPTY: &str = "cannot be empty";
pub const EMPTY_SEGMENT: &str = "path cannot contain empty segments";
pub const MISSING_TRUST_DOMAIN: &str = "trust domain is missing";
pub const TRAILING_SLASH: &str = "path cannot have a trailing slash";
pub const WRONG_SCHEME: &str = "scheme is missing or invalid";

/// `isValidTrustDomainChar`.
pub fn trust_domain_char(c: u8) -> bool {
    matches!(c, b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_')
}

/// `isValidPathSegmentChar`.
pub fn path_char(c: u8) -> bool {
    matches!(c, b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'.' | b'_')
}

/// `spiffeid.FromString`: the trust domain and the path of a SPIFFE ID.
pub fn parse(id: &str) -> Result<(&str, &str), &'static str> {
    if id.is_empty() {
        return Err(EMPTY);
    }
    let rest = id.strip_prefix(SCHEME).ok_or(WRONG_SCHEME)?;
    let end = rest.find('/').unwrap_or(rest.len());
    let (td, path) = rest.split_at(end);
    if !td.bytes().all(trust_domain_char) {
        return Err(BAD_TRUST_DOMAIN_CHAR);
    }
    if td.is_empty() {
        return Err(MISSING_TRUST_DOMAIN);
    }
    validate_path(path)?;
    Ok((td, path))
}

/// `spiffeid.ValidatePath`: empty, or `/segment` repeated.
pub fn validate_path(path: &str) -> Result<(), &'static str> {
    if path.is_empty() {
        return Ok(());
    }
    let Some(segments) = path.strip_prefix('/') else { return Err("path must have a leading slash") };
    let mut segments = segments.split('/').peekable();
    while let Some(segment) = segments.next() {
        let last = segments.peek().is_none();
        match segment {
            "" if last => return Err(TRAILING_SLASH),
            "" => return Err(EMPTY_SEGMENT),
            "." | ".." => return Err(DOT_SEGMENT),
            s if !s.bytes().all(path_char) => return Err(BAD_PATH_SEGMENT_CHAR),
            _ => {}
        }
    }
    Ok(())
}

/// `spiffeid.TrustDomainFromString`: a trust domain name, or a SPIFFE ID (anything holding
/// `:/`) whose trust domain it is: `partner.org` and `spiffe://partner.org/x` both give
/// `partner.org`.
pub fn trust_domain(id_or_name: &str) -> Result<&str, &'static str> {
    if id_or_name.is_empty() {
        return Err(MISSING_TRUST_DOMAIN);
    }
    if id_or_name.contains(":/") {
        return parse(id_or_name).map(|(td, _)| td);
    }
    if !id_or_name.bytes().all(trust_domain_char) {
        return Err(BAD_TRUST_DOMAIN_CHAR);
    }
    Ok(id_or_name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// spiffeid/id_test.go's cases, and those where the Rust `spiffe` crate differs.
    #[test]
    fn ids_as_go_spiffe_parses_them() {
        for (id, td, path) in [
            ("spiffe://example.org", "example.org", ""),
            ("spiffe://example.org/ns/a/sa/b", "example.org", "/ns/a/sa/b"),
            ("spiffe://a_b-c.9/Upper/Case.ok", "a_b-c.9", "/Upper/Case.ok"),
            // No length limit on the trust domain, and `.` or `..` is a trust domain.
            (&format!("spiffe://{}/x", "a".repeat(300)), &"a".repeat(300), "/x"),
            ("spiffe://../x", "..", "/x"),
            ("spiffe://x/..a/.b./...", "x", "/..a/.b./..."),
        ] {
            assert_eq!(parse(id), Ok((td, path)), "{id}");
        }
        for (id, why) in [
            ("", EMPTY),
            ("SPIFFE://example.org/x", WRONG_SCHEME),
            ("Spiffe://example.org/x", WRONG_SCHEME),
            ("spiffe:/example.org/x", WRONG_SCHEME),
            ("http://example.org/x", WRONG_SCHEME),
            ("spiffe://Example.org/x", BAD_TRUST_DOMAIN_CHAR),
            ("spiffe://exa mple.org/x", BAD_TRUST_DOMAIN_CHAR),
            ("spiffe://example.org:8080/x", BAD_TRUST_DOMAIN_CHAR),
            ("spiffe://user@example.org/x", BAD_TRUST_DOMAIN_CHAR),
            ("spiffe://", MISSING_TRUST_DOMAIN),
            ("spiffe:///x", MISSING_TRUST_DOMAIN),
            ("spiffe://example.org/", TRAILING_SLASH),
            ("spiffe://example.org/x/", TRAILING_SLASH),
            ("spiffe://example.org//x", EMPTY_SEGMENT),
            ("spiffe://example.org/./x", DOT_SEGMENT),
            ("spiffe://example.org/x/..", DOT_SEGMENT),
            ("spiffe://example.org/x%20y", BAD_PATH_SEGMENT_CHAR),
            ("spiffe://example.org/x?y", BAD_PATH_SEGMENT_CHAR),
            ("spiffe://example.org/x#y", BAD_PATH_SEGMENT_CHAR),
            ("spiffe://example.org/é", BAD_PATH_SEGMENT_CHAR),
        ] {
            assert_eq!(parse(id), Err(why), "{id}");
        }
    }

    #[test]
    fn a_trust_domain_by_name_or_by_id_gives_its_name() {
        for (given, td) in [
            ("partner.org", "partner.org"),
            ("spiffe://partner.org", "partner.org"),
            ("spiffe://partner.org/some/path", "partner.org"),
        ] {
            assert_eq!(trust_domain(given), Ok(td), "{given}");
        }
        for (given, why) in [
            ("", MISSING_TRUST_DOMAIN),
            ("Partner.org", BAD_TRUST_DOMAIN_CHAR),
            ("SPIFFE://partner.org", WRONG_SCHEME),
            ("spiffe:/partner.org", WRONG_SCHEME),
            ("spiffe://partner.org/", TRAILING_SLASH),
            ("spiffe://Partner.org", BAD_TRUST_DOMAIN_CHAR),
            ("partner.org/x", BAD_TRUST_DOMAIN_CHAR),
            ("spiffe//partner.org", BAD_TRUST_DOMAIN_CHAR),
        ] {
            assert_eq!(trust_domain(given), Err(why), "{given}");
        }
    }
}
