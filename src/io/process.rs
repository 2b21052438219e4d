//! What a mode's run takes from the process and gives back: the environment variables it
//! reads, what it writes and how it exits, and stderr's lines with their escaping.

/// The environment variables the function reads.
#[derive(Debug, Default, Clone)]
pub struct Env {
    pub kube_api_versions: Option<String>,
    pub source_date_epoch: Option<String>,
}

impl Env {
    pub fn from_process() -> Self {
        Env {
            kube_api_versions: std::env::var("KUBE_API_VERSIONS").ok(),
            source_date_epoch: std::env::var("SOURCE_DATE_EPOCH").ok(),
        }
    }
}

/// What the process writes and how it exits, stdout held as text.
#[derive(Debug)]
pub struct RunOutput {
    pub stdout: String,
    pub stderr: String,
    pub exit_code: i32,
}

/// One stderr line. Control characters (a newline in a binding name, say) are escaped, so
/// input can never forge a line of its own.
pub fn stderr_line(text: &str) -> String {
    escaped(text, false)
}

/// A stderr message that may span lines (a YAML error with its snippet, which the YAML
/// layer renders with control characters neutralized); other control characters are escaped.
pub(crate) fn stderr_block(text: &str) -> String {
    escaped(text, true)
}

fn escaped(text: &str, keep_newlines: bool) -> String {
    format!("{LINE_START}{}\n", escape_controls(text.trim_end(), keep_newlines))
}

/// What every line the function writes to stderr starts with.
const LINE_START: &str = "render-inference-identity: ";

/// The length of [`stderr_line_of`] `parts` when they hold nothing to escape or trim.
fn stderr_line_len(parts: &[&str]) -> usize {
    LINE_START.len() + parts.iter().map(|p| p.len()).sum::<usize>() + 1
}

/// [`stderr_line`] of `parts` joined, built in one allocation: a run may write tens of
/// thousands of lines.
pub fn stderr_line_of(parts: &[&str]) -> String {
    let mut line = String::with_capacity(stderr_line_len(parts));
    line.push_str(LINE_START);
    parts.iter().for_each(|part| line.push_str(part));
    let text = &line[LINE_START.len()..];
    if may_hold_controls(text) {
        return stderr_line(text);
    }
    line.truncate(LINE_START.len() + text.trim_end().len());
    line.push('\n');
    line
}

/// `text` with control characters escaped (`\n` as the two characters `\` `n`), except
/// newlines when `keep_newlines` is set.
pub fn escape_controls(text: &str, keep_newlines: bool) -> String {
    if !may_hold_controls(text) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && !(keep_newlines && c == '\n') {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether `text` may hold a control character: U+0000 to U+001F and U+007F to U+009F,
/// the last written 0xC2 0x80 to 0xC2 0x9F.
fn may_hold_controls(text: &str) -> bool {
    text.bytes().any(|b| b < 0x20 || b == 0x7f || b == 0xc2)
}

/// A run that failed before producing output, in the plain-stream modes: nothing on
/// stdout, the reason on stderr, exit 1.
pub fn error_output(message: &str) -> RunOutput {
    RunOutput { stdout: String::new(), stderr: stderr_block(&format!("error: {message}")), exit_code: 1 }
}

#[cfg(test)]
mod tests {
    use super::escape_controls;

    #[test]
    fn a_line_of_parts_is_the_line_of_their_text() {
        for parts in [
            &["warning", ": ", "Kind", ": ", "a message  "][..],
            &["error: ", "x\ny\t "],
            &["info: ", " \n "],
            &[],
        ] {
            assert_eq!(super::stderr_line_of(parts), super::stderr_line(&parts.concat()), "{parts:?}");
        }
    }

    #[test]
    fn control_characters_are_escaped_and_nothing_else() {
        assert_eq!(escape_controls("plain ü \u{a0} \u{c2a0}", false), "plain ü \u{a0} \u{c2a0}");
        assert_eq!(
            escape_controls("a\nb\tc\u{7f}d\u{85}e\u{9f}f\u{1b}", false),
            "a\\nb\\tc\\u{7f}d\\u{85}e\\u{9f}f\\u{1b}"
        );
        assert_eq!(escape_controls("a\nb\u{80}", true), "a\nb\\u{80}");
    }

    /// The fast path's test: true for every control character (and for the lead byte of
    /// U+0080 to U+00BF, which it does not decode), false for all other text.
    #[test]
    fn text_may_hold_controls_only_when_it_holds_a_control_or_its_lead_byte() {
        use super::may_hold_controls;
        for text in ["\u{0}", "\u{1f}", "a\tb", "\u{7f}", "\u{80}", "\u{9f}", "\u{a0}"] {
            assert!(may_hold_controls(text), "{text:?}");
        }
        for text in ["", "plain text", " ~!", "\u{100} \u{e0}\u{3000}"] {
            assert!(!may_hold_controls(text), "{text:?}");
        }
    }
}
