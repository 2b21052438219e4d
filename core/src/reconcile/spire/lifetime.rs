//! An SVID lifetime as the SPIRE server receives it. SPIRE Controller Manager reads `ttl`,
//! `jwtTtl` (a ClusterSPIFFEID) and `x509SVIDTTL`, `jwtSVIDTTL` (a ClusterStaticEntry) as
//! `metav1.Duration`, which is Go's `time.ParseDuration`, and sends whole seconds as an int32
//! (spire-controller-manager `pkg/spireapi/types.go`, `entryToAPI`:
//! `int32(in.X509SVIDTTL / time.Second)`), wrapping as Go's conversion does. The server refuses
//! an entry whose lifetime it receives below 0 (spiffe/spire
//! `pkg/server/datastore/sqlstore/sqlstore.go`, `validateRegistrationEntry` and
//! `validateRegistrationEntryForUpdate`, since v1.5.0), and issues its own configured default
//! for 0 (`pkg/server/credtemplate/builder.go`, `computeX509SVIDLifetime`; the JWT builder
//! alike).

/// One lifetime as the server reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Lifetime {
    /// Unset, or under a whole second: the server's default, which the build does not know.
    ServerDefault,
    /// That many seconds, above 0.
    Seconds(i32),
    /// Received below 0: the server refuses the entry.
    Refused(i32),
    /// Text that is no Go duration.
    NotADuration,
}

impl Lifetime {
    /// The lifetime a written value (`None`: unset) reaches the server as.
    pub fn of(written: Option<&str>) -> Lifetime {
        match written.map(sent_seconds) {
            None | Some(Some(0)) => Lifetime::ServerDefault,
            Some(None) => Lifetime::NotADuration,
            Some(Some(s)) if s < 0 => Lifetime::Refused(s),
            Some(Some(s)) => Lifetime::Seconds(s),
        }
    }

    /// Its length for comparing lifetimes: the server's default, unknown, and text that is
    /// no duration count as endless; one the server refuses gives nothing, shorter than any.
    pub fn length(self) -> f64 {
        match self {
            Lifetime::ServerDefault | Lifetime::NotADuration => f64::INFINITY,
            Lifetime::Seconds(s) => f64::from(s),
            Lifetime::Refused(_) => f64::NEG_INFINITY,
        }
    }
}

/// The seconds the manager sends for a written lifetime: `int32(d / time.Second)`, Go's
/// integer division (toward zero) and conversion (the low 32 bits); `None` when it is no Go
/// duration.
pub fn sent_seconds(written: &str) -> Option<i32> {
    go_duration(written).map(|nanos| (nanos / 1_000_000_000) as i32)
}

/// The whole seconds a written lifetime holds before the cast, when it is a Go duration.
pub fn whole_seconds(written: &str) -> Option<i64> {
    go_duration(written).map(|nanos| nanos / 1_000_000_000)
}

/// Go's `time.ParseDuration` (src/time/format.go), in nanoseconds: an optional sign, then
/// one or more decimal numbers each with a unit (`ns`, `us`, `µs`, `μs`, `ms`, `s`, `m`,
/// `h`), or a bare `0`; `None` where Go returns an error, an overflow of int64 among them.
pub fn go_duration(text: &str) -> Option<i64> {
    const LIMIT: u64 = 1 << 63;
    let (negative, mut rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if rest == "0" {
        return Some(0);
    }
    if rest.is_empty() {
        return None;
    }
    let mut total: u64 = 0;
    while !rest.is_empty() {
        let first = rest.as_bytes()[0];
        if !(first == b'.' || first.is_ascii_digit()) {
            return None;
        }
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let mut whole: u64 = 0;
        for b in rest[..digits].bytes() {
            // leadingInt: refuses a value past 2^63.
            if whole > LIMIT / 10 {
                return None;
            }
            whole = whole * 10 + u64::from(b - b'0');
            if whole > LIMIT {
                return None;
            }
        }
        rest = &rest[digits..];
        let (mut fraction, mut scale, mut post) = (0u64, 1f64, false);
        if let Some(after) = rest.strip_prefix('.') {
            let digits = after.bytes().take_while(u8::is_ascii_digit).count();
            // leadingFraction: stops taking digits once they would overflow, without error.
            let mut overflow = false;
            for b in after[..digits].bytes() {
                if overflow {
                    continue;
                }
                if fraction > (LIMIT - 1) / 10 {
                    overflow = true;
                    continue;
                }
                let next = fraction * 10 + u64::from(b - b'0');
                if next > LIMIT {
                    overflow = true;
                    continue;
                }
                fraction = next;
                scale *= 10.0;
            }
            post = digits > 0;
            rest = &after[digits..];
        }
        if digits == 0 && !post {
            return None;
        }
        let unit_len = rest.find(|c: char| c == '.' || c.is_ascii_digit()).unwrap_or(rest.len());
        if unit_len == 0 {
            return None;
        }
        let unit: u64 = match &rest[..unit_len] {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return None,
        };
        rest = &rest[unit_len..];
        if whole > LIMIT / unit {
            return None;
        }
        let mut value = whole * unit;
        if fraction > 0 {
            // Go: `v += uint64(float64(f) * (float64(unit) / scale))`.
            value += (fraction as f64 * (unit as f64 / scale)) as u64;
            if value > LIMIT {
                return None;
            }
        }
        total += value;
        if total > LIMIT {
            return None;
        }
    }
    if negative {
        // -Duration(d), d at most 2^63: wraps to i64::MIN at the bound, as Go's does.
        Some((total as i64).wrapping_neg())
    } else if total > LIMIT - 1 {
        None
    } else {
        Some(total as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::{Lifetime, go_duration, sent_seconds};

    #[test]
    fn go_durations_parse_as_time_parse_duration_does() {
        let s = 1_000_000_000i64;
        for (text, want) in [
            ("1h", 3600 * s),
            ("1h30m", 5400 * s),
            ("1.5h", 5400 * s),
            ("90s", 90 * s),
            ("300ms", 300_000_000),
            ("0", 0),
            ("-0", 0),
            ("+5s", 5 * s),
            ("-1h", -3600 * s),
            ("1ns", 1),
            ("2us", 2_000),
            ("4µs", 4_000),
            ("8μs", 8_000),
            ("1s2ms", 1_002_000_000),
            (".5s", 500_000_000),
            ("5.s", 5 * s),
            ("0s", 0),
            ("2562047h", 2_562_047 * 3600 * s),
            ("9223372036s1ns", 9_223_372_036 * s + 1),
            ("9223372036854775807ns", i64::MAX),
            ("-9223372036854775808ns", i64::MIN),
        ] {
            assert_eq!(go_duration(text), Some(want), "{text}");
        }
        // Go's errors: no unit, an unknown unit, no digits, a space, text after, overflow.
        for text in [
            "",
            "1",
            "1d",
            "h",
            "1h x",
            " 1h",
            "1h ",
            ".s",
            "-",
            "+",
            "--1s",
            "1e3s",
            "9223372036854775808ns",
        ]
        .into_iter()
        .chain(["2562048h", "9223372037s", "99999999999999999999s"])
        {
            assert_eq!(go_duration(text), None, "{text}");
        }
        // At the edges of int64 and of a fraction's digits, as Go 1.26's time.ParseDuration
        // answers (a fraction stops taking digits once they would overflow, without error).
        for (text, want) in [
            ("0.9223372036854775807s", Some(922_337_203)),
            ("0.9223372036854775808s", Some(922_337_203)),
            ("1.99999999999999999999999h", Some(7_200_000_000_000)),
            ("9223372036.854775807s", Some(i64::MAX)),
            ("9223372036.854775808s", None),
            ("2562047h47m16.854775807s", Some(i64::MAX)),
            ("2562047h47m16.854775808s", None),
            ("0.000000000000000000001h", Some(0)),
            ("1.5555555555555555555555555555h", Some(5_600_000_000_000)),
            ("0.12345678901234567890123456789s", Some(123_456_789)),
            ("2562047.7h", Some(9_223_371_720_000_000_000)),
            ("153722867m", Some(9_223_372_020_000_000_000)),
            ("153722867.3m", None),
            ("9223372036854775807ns1ns", None),
            ("9223372036s854775807ns", Some(i64::MAX)),
            ("9223372036s854775808ns", None),
            ("-9223372036.854775808s", Some(i64::MIN)),
            ("-2562047h47m16.854775808s", Some(i64::MIN)),
        ] {
            assert_eq!(go_duration(text), want, "{text}");
        }
    }

    #[test]
    fn the_manager_sends_whole_seconds_cast_to_int32() {
        // `int32(d / time.Second)`: toward zero, then the low 32 bits.
        for (text, want) in [
            ("1h", 3600),
            ("999ms", 0),
            ("-999ms", 0),
            ("1.9s", 1),
            ("-1h", -3600),
            ("2147483647s", i32::MAX),
            ("2147483648s", i32::MIN),
            ("4294967295s", -1),
            ("4294967296s", 0),
            ("4294967356s", 60),
        ] {
            assert_eq!(sent_seconds(text), Some(want), "{text}");
        }
        assert_eq!(sent_seconds("forever"), None);
    }

    #[test]
    fn a_lifetime_is_the_servers_default_a_length_or_a_refusal() {
        assert_eq!(Lifetime::of(None), Lifetime::ServerDefault);
        assert_eq!(Lifetime::of(Some("0s")), Lifetime::ServerDefault);
        assert_eq!(Lifetime::of(Some("999ms")), Lifetime::ServerDefault);
        assert_eq!(Lifetime::of(Some("4294967296s")), Lifetime::ServerDefault, "wraps to 0");
        assert_eq!(Lifetime::of(Some("10m")), Lifetime::Seconds(600));
        assert_eq!(Lifetime::of(Some("4294967356s")), Lifetime::Seconds(60));
        assert_eq!(Lifetime::of(Some("-1h")), Lifetime::Refused(-3600));
        assert_eq!(Lifetime::of(Some("2147483648s")), Lifetime::Refused(i32::MIN));
        assert_eq!(Lifetime::of(Some("forever")), Lifetime::NotADuration);
        assert!(Lifetime::of(Some("-1s")).length() < Lifetime::of(Some("1s")).length());
        assert!(Lifetime::of(Some("4294967356s")).length() < Lifetime::of(Some("20h")).length());
        assert_eq!(Lifetime::of(None).length(), f64::INFINITY);
    }
}
