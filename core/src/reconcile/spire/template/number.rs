//! Number and character constants as text/template reads them (`newNumber` in
//! text/template/parse/node.go, over `strconv.ParseUint`, `ParseInt` and `ParseFloat` with base
//! 0: `0x10`, `0o17`, `0b1`, `017`, `1_000`, `1e3`, `.5`, `0x1p4`, `'a'`), the value execution
//! gives a constant with no other context (`idealConstant` in exec.go), and how `fmt` prints it.

use super::quote;

/// What a constant evaluates to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Number {
    Int(i64),
    Float(f64),
    /// A complex constant (`1+2i`, `3i`): printed as this model does not reproduce.
    Complex,
    /// An unsigned integer past `int` (`0xFFFFFFFFFFFFFFFF`): Go fails to execute it.
    OverflowsInt,
}

/// The constant `text` of a lexer item (`char`: a character constant; `complex`: `1+2i`),
/// or why Go's parser refuses it.
pub(super) fn parse(text: &str, char: bool, complex: bool) -> Result<Number, String> {
    if char {
        let bad = || format!("malformed character constant: {text}");
        let (c, tail) =
            quote::unquote_char(&text[1..], b'\'').map_err(|()| format!("{text}: invalid syntax"))?;
        if tail != "'" {
            return Err(bad());
        }
        return Ok(Number::Int(i64::from(c.value())));
    }
    if complex {
        // fmt.Sscan reads the pair (`complexTokens`): a float, a sign, a float, then `i`.
        let bad = || format!("expected integer or complex number: {text:?}");
        let real = float_token(text);
        let rest = &text[real.len()..];
        let imaginary = rest.get(1..).map(float_token).ok_or_else(bad)?;
        if !rest.starts_with(['+', '-']) || &rest[1 + imaginary.len()..] != "i" {
            return Err(bad());
        }
        parse_float(real).ok_or_else(bad)?;
        parse_float(&rest[..1 + imaginary.len()]).ok_or_else(bad)?;
        return Ok(Number::Complex);
    }
    if let Some(imaginary) = text.strip_suffix('i')
        && parse_float(imaginary).is_some()
    {
        return Ok(Number::Complex);
    }
    // ParseInt first, then ParseUint; a constant that is an integer is an int, unless it is
    // written as a float (`1e3`, `1.0`; a hexadecimal integer holds `e` as a digit).
    match (parse_int(text), parse_uint(text)) {
        (Some(i), _) => Ok(Number::Int(i)),
        (None, Some(_)) => Ok(Number::OverflowsInt),
        (None, None) => match parse_float(text) {
            Some(_) if !text.contains(['.', 'e', 'E', 'p', 'P']) => {
                Err(format!("integer overflow: {text:?}"))
            }
            Some(f) => Ok(Number::Float(f)),
            None => Err(format!("illegal number syntax: {text:?}")),
        },
    }
}

/// The float `fmt`'s scanner takes from the start of `s` (`floatToken` in fmt/scan.go,
/// without NaN and Inf, which the lexer never gives).
fn float_token(s: &str) -> &str {
    let b = s.as_bytes();
    let mut i = 0;
    let take = |i: &mut usize, set: &dyn Fn(u8) -> bool| {
        if *i < b.len() && set(b[*i]) {
            *i += 1;
            true
        } else {
            false
        }
    };
    take(&mut i, &|c| c == b'+' || c == b'-');
    let mut hex = false;
    if take(&mut i, &|c| c == b'0') && take(&mut i, &|c| c == b'x' || c == b'X') {
        hex = true;
    }
    let digit = move |c: u8| c == b'_' || if hex { c.is_ascii_hexdigit() } else { c.is_ascii_digit() };
    while take(&mut i, &digit) {}
    if take(&mut i, &|c| c == b'.') {
        while take(&mut i, &digit) {}
    }
    let exponent = move |c: u8| {
        if hex { c == b'p' || c == b'P' } else { c == b'e' || c == b'E' || c == b'p' || c == b'P' }
    };
    if take(&mut i, &exponent) {
        take(&mut i, &|c| c == b'+' || c == b'-');
        while take(&mut i, &|c| c == b'_' || c.is_ascii_digit()) {}
    }
    &s[..i]
}

/// Go's `underscoreOK`: underscores only between digits (a base prefix counts as one).
fn underscore_ok(s: &str) -> bool {
    let mut s = s.as_bytes();
    if let [b'+' | b'-', rest @ ..] = s {
        s = rest;
    }
    let mut saw = b'^';
    let mut i = 0;
    let mut hex = false;
    if s.len() >= 2 && s[0] == b'0' && matches!(s[1].to_ascii_lowercase(), b'b' | b'o' | b'x') {
        i = 2;
        saw = b'0';
        hex = s[1].eq_ignore_ascii_case(&b'x');
    }
    for &c in &s[i..] {
        if c.is_ascii_digit() || hex && c.is_ascii_hexdigit() {
            saw = b'0';
        } else if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
        } else {
            if saw == b'_' {
                return false;
            }
            saw = b'!';
        }
    }
    saw != b'_'
}

/// `strconv.ParseUint(text, 0, 64)`.
fn parse_uint(text: &str) -> Option<u64> {
    if text.is_empty() {
        return None;
    }
    let b = text.as_bytes();
    let (base, digits) =
        if b[0] == b'0' && b.len() >= 3 && matches!(b[1].to_ascii_lowercase(), b'b' | b'o' | b'x') {
            let base = match b[1].to_ascii_lowercase() {
                b'b' => 2,
                b'o' => 8,
                _ => 16,
            };
            (base, &text[2..])
        } else if b[0] == b'0' {
            (8, &text[1..])
        } else {
            (10, text)
        };
    let mut value: u64 = 0;
    let mut underscores = false;
    for c in digits.bytes() {
        let d = match c {
            b'_' => {
                underscores = true;
                continue;
            }
            b'0'..=b'9' => c - b'0',
            c if c.is_ascii_alphabetic() => c.to_ascii_lowercase() - b'a' + 10,
            _ => return None,
        };
        if u32::from(d) >= base {
            return None;
        }
        value = value.checked_mul(u64::from(base))?.checked_add(u64::from(d))?;
    }
    if underscores && !underscore_ok(text) {
        return None;
    }
    Some(value)
}

/// `strconv.ParseInt(text, 0, 64)`.
fn parse_int(text: &str) -> Option<i64> {
    let (negative, digits) = match text.as_bytes().first()? {
        b'+' => (false, &text[1..]),
        b'-' => (true, &text[1..]),
        _ => (false, text),
    };
    let u = parse_uint(digits)?;
    if negative {
        if u > 1 << 63 {
            return None;
        }
        Some((u as i64).wrapping_neg())
    } else {
        i64::try_from(u).ok()
    }
}

/// `strconv.ParseFloat(text, 64)` for what the lexer takes as a number; `None` where Go
/// gives an error (bad syntax, or out of range).
fn parse_float(text: &str) -> Option<f64> {
    let (negative, s) = match text.as_bytes().first()? {
        b'+' => (false, &text[1..]),
        b'-' => (true, &text[1..]),
        _ => (false, text),
    };
    let b = s.as_bytes();
    let hex = b.len() > 2 && b[0] == b'0' && b[1].eq_ignore_ascii_case(&b'x');
    let body = if hex { &s[2..] } else { s };
    // The mantissa: digits with at most one dot, then the exponent.
    let exp_char = if hex { 'p' } else { 'e' };
    let (mantissa, exponent) = match body.find(|c: char| c.to_ascii_lowercase() == exp_char) {
        Some(at) => (&body[..at], Some(&body[at + 1..])),
        None => (body, None),
    };
    let digit = |c: char| if hex { c.is_ascii_hexdigit() } else { c.is_ascii_digit() };
    if mantissa.matches('.').count() > 1
        || !mantissa.chars().all(|c| digit(c) || c == '.' || c == '_')
        || !mantissa.chars().any(digit)
    {
        return None;
    }
    let exp: i64 = match exponent {
        Some(e) => {
            let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
            if !digits.starts_with(|c: char| c.is_ascii_digit())
                || !digits.chars().all(|c| c.is_ascii_digit() || c == '_')
            {
                return None;
            }
            let n: i64 = digits.replace('_', "").parse::<i64>().unwrap_or(i64::MAX / 4).min(100_000);
            if e.starts_with('-') { -n } else { n }
        }
        None if hex => return None,
        None => 0,
    };
    if s.contains('_') && !underscore_ok(s) {
        return None;
    }
    let clean = mantissa.replace('_', "");
    let value = if hex {
        let (int, frac) = clean.split_once('.').unwrap_or((&clean, ""));
        let all = format!("{int}{frac}");
        let all = all.trim_start_matches('0');
        // Beyond 53 bits the rounding is Go's own; this model keeps such constants unknown.
        if all.len() > 13 {
            return None;
        }
        let m = u64::from_str_radix(if all.is_empty() { "0" } else { all }, 16).ok()? as f64;
        m * 2f64.powi(i32::try_from(exp - 4 * frac.len() as i64).ok()?)
    } else {
        format!("{clean}e{exp}").parse::<f64>().ok()?
    };
    if value.is_infinite() {
        return None;
    }
    Some(if negative { -value } else { value })
}

/// How `fmt.Print` writes a float64: `%v`, strconv's shortest `%g`, which writes an exponent
/// below 1e-4 and from 1e6 on (`1e+06`, `1.5e-05`), and the digits otherwise (`1000`, `0.5`).
pub(super) fn format_float(f: f64) -> String {
    if f == 0.0 {
        return if f.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    // Rust's shortest round-trip digits, as Go's: `d.ddddde±x`.
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if f < 0.0 { "-" } else { "" };
    if !(-4..6).contains(&exp) {
        let (first, rest) = digits.split_at(1);
        let frac = if rest.is_empty() { String::new() } else { format!(".{rest}") };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{first}{frac}e{esign}{:02}", exp.abs());
    }
    let dp = exp + 1;
    let text = if dp <= 0 {
        format!("0.{}{digits}", "0".repeat(dp.unsigned_abs() as usize))
    } else if dp as usize >= digits.len() {
        format!("{digits}{}", "0".repeat(dp as usize - digits.len()))
    } else {
        format!("{}.{}", &digits[..dp as usize], &digits[dp as usize..])
    };
    format!("{sign}{text}")
}
