//! How KServe names the objects it makes for a service: knative.dev/pkg's `kmeta.ChildName`
//! (`kmeta/names.go`, at the version KServe's go.mod pins, v0.0.0-20260120122510-4a022ed9999a),
//! which every child name of `pkg/controller/v1alpha2/llmisvc/` goes through, and which the
//! presets call as the template function `ChildName` (`config_merge.go`, `ReplaceVariables`).
//! A name that fits 63 characters is the parent and the suffix; a longer one is cut and takes
//! the MD5 of the parent (of parent and suffix, for a suffix of 31 characters or more), as
//! the integration suite checks against the Go function itself.

use md5::{Digest, Md5};

/// The longest Kubernetes name ChildName keeps to.
const LONGEST: usize = 63;
/// The length of an MD5 in hexadecimal.
const MD5_LEN: usize = 32;
/// How much of the parent stays beside a hash of the whole.
const HEAD: usize = LONGEST - MD5_LEN;

/// `kmeta.ChildName(parent, suffix)`. Kubernetes names are ASCII: lengths and cuts count bytes,
/// as Go's do; a cut inside a character (never a valid name) keeps whole characters.
pub fn child_name(parent: &str, suffix: &str) -> String {
    if parent.len() + suffix.len() <= LONGEST {
        return format!("{parent}{suffix}");
    }
    if HEAD <= suffix.len() {
        // The suffix is too long for the parent's hash beside it: hash both, keep the head of
        // the parent, pad with the start of the suffix, and end on a letter or digit.
        let hash = hex(&Md5::digest(format!("{parent}{suffix}").as_bytes()));
        let mut name = format!("{}{hash}", cut(parent, HEAD));
        let room = LONGEST.saturating_sub(name.len());
        name.push_str(cut(suffix, room));
        while name.ends_with(|c: char| !c.is_ascii_alphanumeric()) {
            name.pop();
        }
        return name;
    }
    let hash = hex(&Md5::digest(parent.as_bytes()));
    format!("{}{hash}{suffix}", cut(parent, HEAD - suffix.len()))
}

/// The first `n` bytes of `text`, fewer when byte `n` is inside a character.
fn cut(text: &str, n: usize) -> &str {
    let mut end = n.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_that_fits_is_parent_and_suffix() {
        assert_eq!(child_name("llama", "-inference-pool"), "llama-inference-pool");
        let parent = "a".repeat(48);
        assert_eq!(child_name(&parent, "-inference-pool").len(), 63);
        assert_eq!(child_name(&parent, "-inference-pool"), format!("{parent}-inference-pool"));
    }

    #[test]
    fn a_longer_name_takes_the_parents_hash() {
        let parent = "a".repeat(49);
        let name = child_name(&parent, "-inference-pool");
        assert_eq!(name.len(), 63);
        assert_eq!(
            name,
            format!("{}{}-inference-pool", "a".repeat(16), hex(&Md5::digest(parent.as_bytes())))
        );
        assert!(name.starts_with("aaaaaaaaaaaaaaaa") && name.ends_with("-inference-pool"));
    }

    #[test]
    fn a_long_suffix_hashes_parent_and_suffix_pads_and_ends_on_a_letter_or_digit() {
        let parent = "p".repeat(25);
        let hash = |suffix: &str| hex(&Md5::digest(format!("{parent}{suffix}").as_bytes()));
        // 25 + 32 = 57: six characters of the suffix pad the name to 63.
        let suffix = format!("-abcde{}", "s".repeat(40));
        assert_eq!(child_name(&parent, &suffix), format!("{parent}{}-abcde", hash(&suffix)));
        // Padding of dashes alone is trimmed away.
        let dashes = format!("------{}", "s".repeat(40));
        assert_eq!(child_name(&parent, &dashes), format!("{parent}{}", hash(&dashes)));
        // A long parent keeps its first 31 characters.
        let long = "q".repeat(40);
        let name = child_name(&long, &suffix);
        assert_eq!(name.len(), 63);
        assert!(name.starts_with(&"q".repeat(31)) && !name.contains("-abcde"));
    }
}
