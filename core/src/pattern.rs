//! The manager's `ignoreNamespaces`: Go regular expressions (`regexp.Compile`, cmd/main.go:
//! 154-161), matched anywhere in a namespace's name (`pkg/namespace/namespace.go`). Go's
//! syntax is RE2's less `\C`; the regex crate reads most of it alike, so each pattern is
//! restated in the crate's syntax where the two differ, and refused where Go refuses it:
//!
//! - `\Q...\E` (literal text) becomes the escaped text;
//! - an escaped punctuation character is that character (the crate reads `\<` and `\>` as
//!   word boundaries); `\1`..`\7` followed by octal digits, and `\0`, are octal codes;
//! - `\d`, `\s`, `\w` and their negations are ASCII, as in Go;
//! - in a class, `[` not opening `[:name:]`, `&` and `~` are literal (the crate reads nested
//!   classes and set operations there);
//! - a `{` that does not start a repetition is literal;
//! - Go refuses `\C`, backreferences (`\1` alone, `\8`), flags other than `i`, `m`, `s`,
//!   `U`, lookaround, and repetition counts above 1000: so does this function.

/// A compiled `ignoreNamespaces` entry, with its text as written.
#[derive(Debug, Clone)]
pub struct IgnorePattern {
    pub text: String,
    regex: regex::Regex,
}

impl PartialEq for IgnorePattern {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for IgnorePattern {}

impl IgnorePattern {
    /// Compiles a Go pattern; `Err` says why Go's `regexp.Compile` refuses it.
    pub fn new(text: &str) -> Result<IgnorePattern, String> {
        let restated = restate(text)?;
        let regex = regex::Regex::new(&restated).map_err(|e| {
            e.to_string().lines().last().unwrap_or_default().trim_start_matches("error: ").to_string()
        })?;
        Ok(IgnorePattern { text: text.to_string(), regex })
    }

    pub fn is_match(&self, namespace: &str) -> bool {
        self.regex.is_match(namespace)
    }
}

/// Whether a pattern matches `namespace` anywhere in its name: the manager ignores it.
pub fn ignores(patterns: &[IgnorePattern], namespace: &str) -> bool {
    patterns.iter().any(|p| p.is_match(namespace))
}

/// `c` as the crate reads it literally, in or out of a class.
fn literal(c: char) -> String {
    format!("\\x{{{:X}}}", u32::from(c))
}

/// A Go pattern in the regex crate's syntax.
fn restate(go: &str) -> Result<String, String> {
    let chars: Vec<char> = go.chars().collect();
    let mut out = String::with_capacity(go.len());
    let mut i = 0;
    // Inside a class: whether the next `]` is still its first character.
    let mut class: Option<bool> = None;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if c == '\\' {
            let Some(&e) = chars.get(i) else { return Err("trailing backslash at end of expression".into()) };
            i += 1;
            match e {
                'Q' if class.is_none() => {
                    while i < chars.len() && !(chars[i] == '\\' && chars.get(i + 1) == Some(&'E')) {
                        out.push_str(&literal(chars[i]));
                        i += 1;
                    }
                    i = (i + 2).min(chars.len().max(i));
                }
                '1'..='7' | '0' => {
                    let mut code = e.to_digit(8).expect("an octal digit");
                    let mut digits = 1;
                    while digits < 3 && chars.get(i).is_some_and(|d| d.is_digit(8)) {
                        code = code * 8 + chars[i].to_digit(8).expect("an octal digit");
                        i += 1;
                        digits += 1;
                    }
                    if e != '0' && digits == 1 {
                        return Err(format!("invalid escape sequence: \\{e} (Go has no backreferences)"));
                    }
                    out.push_str(&format!("\\x{{{code:X}}}"));
                }
                'd' | 'D' | 's' | 'S' | 'w' | 'W' => {
                    let set = match e.to_ascii_lowercase() {
                        'd' => "0-9",
                        's' => "\\t\\n\\x0C\\r ",
                        _ => "0-9A-Za-z_",
                    };
                    let negated = e.is_ascii_uppercase();
                    out.push_str(&format!("[{}{set}]", if negated { "^" } else { "" }));
                }
                'x' | 'p' | 'P' => {
                    // `\x7F`, `\x{10FFFF}`, `\pL`, `\p{Greek}`: copied whole.
                    out.push('\\');
                    out.push(e);
                    let len = match chars.get(i) {
                        Some('{') => {
                            chars[i..].iter().position(|c| *c == '}').map_or(chars.len() - i, |p| p + 1)
                        }
                        Some(_) if e == 'x' => 2.min(chars.len() - i),
                        Some(_) => 1,
                        None => 0,
                    };
                    out.extend(&chars[i..i + len]);
                    i += len;
                }
                'a' | 'f' | 't' | 'n' | 'r' | 'v' => {
                    out.push('\\');
                    out.push(e);
                }
                'b' | 'B' | 'A' | 'z' if class.is_none() => {
                    out.push('\\');
                    out.push(e);
                }
                p if p.is_ascii_punctuation() => out.push_str(&literal(p)),
                other => return Err(format!("invalid escape sequence: \\{other}")),
            }
            if let Some(first) = &mut class {
                *first = false;
            }
            continue;
        }
        match class {
            Some(first) => {
                match c {
                    ']' if !first => {
                        out.push(']');
                        class = None;
                        continue;
                    }
                    '^' if first && out.ends_with('[') => {
                        out.push('^');
                        continue;
                    }
                    '[' if chars.get(i) == Some(&':') => {
                        let end = chars[i..].iter().collect::<String>().find(":]").map(|e| e + i);
                        match end {
                            Some(end) => {
                                out.extend(&chars[i - 1..end + 2]);
                                i = end + 2;
                            }
                            None => out.push_str(&literal('[')),
                        }
                    }
                    ']' | '[' | '&' | '~' => out.push_str(&literal(c)),
                    _ => out.push(c),
                }
                class = Some(false);
            }
            None => match c {
                '[' => {
                    out.push('[');
                    class = Some(true);
                }
                '(' if chars.get(i) == Some(&'?') => {
                    let rest: String = chars[i + 1..].iter().collect();
                    if rest.starts_with("P<") || rest.starts_with('<') {
                        out.push_str("(?");
                        i += 1;
                        continue;
                    }
                    let flags: String = rest.chars().take_while(|c| *c != ')' && *c != ':').collect();
                    if flags.is_empty() || !flags.chars().all(|f| matches!(f, 'i' | 'm' | 's' | 'U' | '-')) {
                        return Err(format!(
                            "invalid or unsupported Perl syntax: (?{}",
                            rest.chars().next().unwrap_or(')')
                        ));
                    }
                    out.push_str("(?");
                    i += 1;
                }
                '{' => match repetition(&chars[i..]) {
                    Some((len, count)) if count > 1000 => {
                        return Err(format!(
                            "invalid repeat count: {{{}",
                            chars[i..i + len].iter().collect::<String>()
                        ));
                    }
                    Some((len, _)) => {
                        out.push('{');
                        out.extend(&chars[i..i + len]);
                        i += len;
                    }
                    None => out.push_str(&literal('{')),
                },
                '}' => out.push_str(&literal('}')),
                _ => out.push(c),
            },
        }
    }
    if class.is_some() {
        return Err("missing closing ]".into());
    }
    Ok(out)
}

/// After a `{`: the length up to and with `}` and the largest count, when it is `n}`, `n,}` or `n,m}`.
fn repetition(after: &[char]) -> Option<(usize, u64)> {
    let text: String = after.iter().take_while(|c| **c != '}').collect();
    if text.len() == after.len() {
        return None;
    }
    let number = |s: &str| {
        (!s.is_empty() && s.chars().all(|c| c.is_ascii_digit())).then(|| s.parse::<u64>().unwrap_or(u64::MAX))
    };
    let count = match text.split_once(',') {
        None => number(&text)?,
        Some((n, "")) => number(n)?,
        Some((n, m)) => number(n)?.max(number(m)?),
    };
    Some((text.chars().count() + 1, count))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, namespace: &str) -> bool {
        IgnorePattern::new(pattern).unwrap().is_match(namespace)
    }

    #[test]
    fn go_syntax_the_crate_reads_otherwise() {
        assert!(matches(r"\Qkube.system\E", "kube.system"));
        assert!(!matches(r"\Qkube.system\E", "kubexsystem"), "\\Q...\\E is literal text");
        assert!(matches(r"^\Qteam-\E\d+$", "team-42"));
        assert!(matches(r"a\<b", "a<b"), "an escaped punctuation character is itself");
        assert!(matches(r"^a{$", "a{"), "a brace that starts no repetition is literal");
        assert!(matches(r"^[a[]$", "["), "[ is literal in a class");
        assert!(matches(r"^[[:alpha:]-]+$", "kube-system"));
        assert!(matches(r"^\x{2D}$", "-"));
        assert!(matches(r"^\055$", "-"), "octal");
        assert!(matches("^(?i)KUBE-", "kube-system"));
        assert!(matches(r"^ns-\d{2,3}$", "ns-123"));
    }

    #[test]
    fn what_go_refuses() {
        for bad in [r"\C", r"(a)\1", r"\8", "(?x)a", "(?=a)", "a{1001}", "[a", r"\q", "(?P<n>a"] {
            assert!(IgnorePattern::new(bad).is_err(), "{bad}");
        }
    }
}
