//! Go's `strconv.Unquote` and `strconv.UnquoteChar` (strconv/quote.go), which text/template's
//! parser calls on every quoted and raw string and character constant: what a constant holds,
//! or why Go refuses it (the template then does not parse).

/// The bytes a quoted (`"..."`) or raw (`` `...` ``) string holds.
pub(super) fn unquote(quoted: &str) -> Result<Vec<u8>, String> {
    let bad = || format!("{quoted}: invalid syntax");
    let b = quoted.as_bytes();
    if b.len() < 2 {
        return Err(bad());
    }
    match b[0] {
        b'`' => {
            if b[b.len() - 1] != b'`' || quoted[1..quoted.len() - 1].contains('`') {
                return Err(bad());
            }
            // A raw string drops its carriage returns.
            Ok(quoted[1..quoted.len() - 1].bytes().filter(|c| *c != b'\r').collect())
        }
        b'"' => {
            let mut rest = &quoted[1..];
            let mut out = Vec::new();
            while !rest.is_empty() && !rest.starts_with('"') {
                if rest.starts_with('\n') {
                    return Err(bad());
                }
                let (c, tail) = unquote_char(rest, b'"').map_err(|()| bad())?;
                c.push_to(&mut out);
                rest = tail;
            }
            if rest != "\"" {
                return Err(bad());
            }
            Ok(out)
        }
        _ => Err(bad()),
    }
}

/// One character of a quoted string or character constant: a rune, or (`\x`, octal) a byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unquoted {
    Rune(char),
    Byte(u8),
}

impl Unquoted {
    /// The number a character constant gives: the rune's code point, or the byte.
    pub fn value(self) -> u32 {
        match self {
            Unquoted::Rune(c) => u32::from(c),
            Unquoted::Byte(b) => u32::from(b),
        }
    }

    fn push_to(self, out: &mut Vec<u8>) {
        match self {
            Unquoted::Rune(c) => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
            Unquoted::Byte(b) => out.push(b),
        }
    }
}

/// `strconv.UnquoteChar(s, quote)`: the first character of `s` and what follows it.
pub(super) fn unquote_char(s: &str, quote: u8) -> Result<(Unquoted, &str), ()> {
    let first = s.chars().next().ok_or(())?;
    if first != '\\' {
        if first as u32 == u32::from(quote) && (quote == b'\'' || quote == b'"') {
            return Err(());
        }
        // A byte below 0x80 is itself; any other character is a whole rune.
        return Ok((Unquoted::Rune(first), &s[first.len_utf8()..]));
    }
    let mut chars = s[1..].chars();
    let c = chars.next().ok_or(())?;
    let rest = chars.as_str();
    let simple = match c {
        'a' => Some('\u{7}'),
        'b' => Some('\u{8}'),
        'f' => Some('\u{c}'),
        'n' => Some('\n'),
        'r' => Some('\r'),
        't' => Some('\t'),
        'v' => Some('\u{b}'),
        '\\' => Some('\\'),
        '\'' | '"' if c as u32 == u32::from(quote) => Some(c),
        _ => None,
    };
    if let Some(v) = simple {
        return Ok((Unquoted::Rune(v), rest));
    }
    match c {
        'x' | 'u' | 'U' => {
            let n = match c {
                'x' => 2,
                'u' => 4,
                _ => 8,
            };
            let digits = rest.get(..n).ok_or(())?;
            if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(());
            }
            let v = u32::from_str_radix(digits, 16).map_err(|_| ())?;
            let tail = &rest[n..];
            if c == 'x' {
                return Ok((Unquoted::Byte(v as u8), tail));
            }
            // A surrogate half or a code point past U+10FFFF is no rune.
            char::from_u32(v).map(|r| (Unquoted::Rune(r), tail)).ok_or(())
        }
        '0'..='7' => {
            let digits = rest.get(..2).ok_or(())?;
            if !digits.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
                return Err(());
            }
            let v = (c as u32 - '0' as u32) << 6 | u32::from_str_radix(digits, 8).map_err(|_| ())?;
            let byte = u8::try_from(v).map_err(|_| ())?;
            Ok((Unquoted::Byte(byte), &rest[2..]))
        }
        _ => Err(()),
    }
}
