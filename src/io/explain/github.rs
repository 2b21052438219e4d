//! `-o github`: annotations as GitHub Actions workflow commands, one line each, escaped by
//! the rules GitHub's runner unescapes them by.

use super::annotations::Annotation;
use crate::reconcile::findings::Severity;

/// The annotations as GitHub Actions workflow commands (`::warning file=F,line=N,title=T::M`):
/// `error`, `warning` and, for info, `notice`.
pub fn github(annotations: &[Annotation]) -> String {
    let mut out = String::new();
    for a in annotations {
        let command = match a.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let mut properties = Vec::new();
        if let Some(at) = &a.at {
            if let Some(file) = &at.file {
                // Named as messages name it: control characters and bytes that are not
                // UTF-8 escaped, never replaced.
                properties.push(format!("file={}", property(&crate::io::files::quote(file))));
            }
            properties.push(format!("line={}", at.line));
        }
        properties.push(format!("title={}", property(a.rule)));
        out.push_str(&format!("::{command} {}::{}\n", properties.join(","), data(&a.message)));
    }
    out
}

/// A command's message, escaped as GitHub's runner unescapes it (`%`, `\r`, `\n`); any
/// other control character, which the runner would pass on raw to the log, is written as
/// Rust escapes it (`\u{1b}`).
fn data(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c if c.is_control() => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out
}

/// A command's property value: as a message, and `:` and `,` too.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::explain::report::At;
    use std::os::unix::ffi::OsStrExt as _;
    use std::path::PathBuf;

    #[test]
    fn workflow_commands_escape_what_github_unescapes() {
        assert_eq!(data("50% a\r\nb"), "50%25 a%0D%0Ab");
        assert_eq!(property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
        assert_eq!(data("a\u{1b}[31mb\t"), "a\\u{1b}[31mb\\t");
    }

    #[test]
    fn a_file_in_a_workflow_command_is_named_as_messages_name_it() {
        let file = PathBuf::from(std::ffi::OsStr::from_bytes(b"a\x1b[31m,b\xff.yaml"));
        let annotation = Annotation {
            rule: "NoMatchingWorkload",
            severity: Severity::Warning,
            message: "m".to_string(),
            at: Some(At { file: Some(file), line: 3 }),
            fingerprint: String::new(),
        };
        assert_eq!(
            github(&[annotation]),
            "::warning file=a\\u{1b}[31m%2Cb\\xff.yaml,line=3,title=NoMatchingWorkload::m\n"
        );
    }
}
