//! What a run parsed, by the text read: `diff` reads each side once per state it judges
//! (`src/io/diff/mod.rs`), and with this parses each file once however many it judges.

use super::{Options, Stream, files};
use std::collections::HashMap;
use std::sync::Mutex;

/// The streams parsed so far, by the text they were parsed from, all with one [`Options`].
#[derive(Default)]
pub struct Parsed {
    options: Options,
    streams: Mutex<HashMap<String, Result<Stream, String>>>,
}

impl std::fmt::Debug for Parsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Parsed({} texts)", self.streams.lock().map_or(0, |s| s.len()))
    }
}

impl Parsed {
    /// [`files`] of `texts`, each parsed once: a text parsed before is a copy of its stream.
    pub fn files(&self, texts: Vec<String>) -> Vec<Result<Stream, String>> {
        // A poisoned lock (a panic while parsing) leaves what was parsed whole.
        let mut streams = self.streams.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let new: Vec<String> = texts.iter().filter(|t| !streams.contains_key(*t)).cloned().collect();
        for (text, stream) in new.clone().into_iter().zip(files(new, self.options)) {
            streams.insert(text, stream);
        }
        texts.iter().map(|text| streams[text].clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_parsed_before_gives_the_same_stream_as_a_first_parse() {
        let parsed = Parsed::default();
        let texts = || vec!["kind: A\nmetadata: {name: a}\n".to_string(), "a: [\n".to_string()];
        let first = parsed.files(texts());
        let again = parsed.files(texts());
        let fresh = files(texts(), Options::default());
        for ((first, again), fresh) in first.iter().zip(&again).zip(&fresh) {
            let parts = |s: &Result<Stream, String>| {
                s.as_ref().map(|s| (s.text.clone(), s.parts.clone())).map_err(String::clone)
            };
            assert_eq!(parts(first), parts(fresh));
            assert_eq!(parts(again), parts(fresh));
        }
        assert!(again[1].is_err(), "an error is kept as one");
        assert_eq!(format!("{parsed:?}"), "Parsed(2 texts)");
    }
}
