//! Holds the text-preserving reader to the full YAML reader on arbitrary text, as a
//! ResourceList and as a stream: the same acceptance and error wording, the same values,
//! and every item's text reading on its own as that item; and the lexer's events to the
//! parser's (`io::read::check`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use render_inference_identity::io::read::check;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Err(problem) = check::list(text) {
        panic!("ResourceList reading: {problem}\n--- input ---\n{text}");
    }
    if let Err(problem) = check::stream(text) {
        panic!("stream reading: {problem}\n--- input ---\n{text}");
    }
    if let Err(problem) = check::events(text) {
        panic!("lexing: {problem}\n--- input ---\n{text}");
    }
});
