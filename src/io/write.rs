//! Writing output items as text: an item that leaves unchanged is copied from its input
//! text, a binding gets its new `status` put in place in its own text, and everything else
//! (new and replaced outputs, items that cannot be copied) is serialized. Large outputs are
//! written over two threads, small ones in one chunk by the calling thread: one path.

use super::pipeline::Output;
use super::read::{ItemText, Place, Stream};
use crate::api::binding::InferenceIdentityBindingStatus;
use crate::reconcile::input::Input;
use crate::reconcile::item::Item;
use crate::yaml;
use serde::Serialize;
use std::io::Write;

/// Below this many items to serialize, a second thread costs more than it saves.
#[doc(hidden)]
pub const PARALLEL_FROM: usize = 2_000;
/// Large outputs are cut into this many chunks with equal shares of serializing (copies
/// cost next to nothing). A second thread serializes every other chunk while this one
/// serializes and writes the rest in order, so at most a few chunks wait as text.
const CHUNKS: usize = 64;

/// How the items are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// Entries of a block sequence, their `-` at this column (a ResourceList's `items`).
    List { indent: usize },
    /// Documents separated by `---` lines.
    Stream,
}

/// The input text of an item, by its position in the input.
#[derive(Clone, Copy)]
pub struct Source<'a> {
    /// The whole text the item was read from (its file, or the input).
    pub text: &'a str,
    pub item: &'a ItemText,
}

/// Writes `items` in `form`, copying from `sources` (by input position) what can be copied.
pub fn items<W: Write>(
    out: &mut W,
    items: &[Item],
    sources: &[Source<'_>],
    form: Form,
) -> Result<(), String> {
    let writer = Writer { sources, form };
    let chunks = writer.plan(items, crate::parallel::cores());
    let (sender, receiver) = std::sync::mpsc::sync_channel::<Result<Vec<u8>, String>>(1);
    std::thread::scope(|scope| {
        let (chunks, writer) = (&chunks, &writer);
        // The second thread serializes every other chunk: none when there is one chunk.
        scope.spawn(move || {
            for &(first, chunk) in chunks.iter().skip(1).step_by(2) {
                let mut buffer = Vec::new();
                let written = writer.part(&mut buffer, chunk, first).map(|()| buffer);
                if sender.send(written).is_err() {
                    break;
                }
            }
        });
        // The receiver goes with the loop, whatever ends it: a write that fails (a reader that
        // closed its end) then stops the second thread's next send instead of blocking it.
        let receiver = receiver;
        for (i, &(first, chunk)) in chunks.iter().enumerate() {
            if i % 2 == 0 {
                writer.part(&mut *out, chunk, first)?;
            } else {
                let buffer = receiver.recv().map_err(|_| "the writer thread stopped".to_string())??;
                out.write_all(&buffer).map_err(|e| e.to_string())?;
            }
        }
        Ok(())
    })
}

/// Items to write as a stream of documents, with the streams their text came from (the exec
/// plugin's standard input, the files of a render).
pub struct Documents {
    pub items: Vec<Item>,
    pub streams: Vec<Stream>,
    /// By item position: the stream and the part of it the item came from.
    pub kept: Vec<(usize, usize)>,
}

impl Documents {
    /// Where each item's text is, by item position.
    pub fn sources(&self) -> Vec<Source<'_>> {
        self.kept
            .iter()
            .map(|&(f, i)| Source { text: &self.streams[f].text, item: &self.streams[f].parts[i].text })
            .collect()
    }
}

impl Output for Documents {
    fn write_to(&self, out: &mut dyn Write) -> Result<(), String> {
        items(&mut &mut *out, &self.items, &self.sources(), Form::Stream)
    }
}

/// Whether `costly` items to serialize or splice are written over two threads on `cores` cores.
#[doc(hidden)]
pub fn two_threads(costly: usize, cores: usize) -> bool {
    costly >= PARALLEL_FROM && cores > 1
}

struct Writer<'s, 'a> {
    sources: &'s [Source<'a>],
    form: Form,
}

/// How one item is written.
enum Emit<'t> {
    /// Its input text, as it stands.
    Copy(&'t str),
    /// Its input text with the new status between `before` and `after`.
    Splice {
        before: &'t str,
        after: &'t str,
        column: usize,
        append: bool,
    },
    Serialize,
}

impl<'a> Writer<'_, 'a> {
    fn source(&self, position: usize) -> Option<&Source<'a>> {
        self.sources.get(position).filter(|s| s.item.copy)
    }

    fn emit(&self, item: &Item) -> Emit<'a> {
        match item {
            Item::Input(position, _) => match self.source(*position) {
                Some(s) => Emit::Copy(&s.text[s.item.chunk.clone()]),
                None => Emit::Serialize,
            },
            Item::Binding(position, ..) => {
                let Some(s) = self.source(*position) else { return Emit::Serialize };
                let Some(slot) = &s.item.status else { return Emit::Serialize };
                let chunk = &s.item.chunk;
                let (cut, resume, append) = match &slot.place {
                    Place::Replace(range) => (range.start, range.end, false),
                    Place::Append(at) => (*at, *at, true),
                };
                Emit::Splice {
                    before: &s.text[chunk.start..cut],
                    after: &s.text[resume..chunk.end],
                    column: slot.column,
                    append,
                }
            }
            Item::Rendered(..) | Item::Guard(..) => Emit::Serialize,
        }
    }

    fn copied(&self, item: &Item) -> bool {
        matches!(self.emit(item), Emit::Copy(_))
    }

    /// The items cut into chunks for two threads to write in turn; one chunk holding them
    /// all when this thread writes them alone (few to serialize, or one core).
    fn plan<'i>(&self, items: &'i [Item], cores: usize) -> Vec<(usize, &'i [Item])> {
        let costly = items.iter().filter(|item| !self.copied(item)).count();
        if two_threads(costly, cores) {
            self.chunks(items, costly.div_ceil(CHUNKS))
        } else {
            vec![(0, items)]
        }
    }

    /// `items` cut after every `per_chunk` items that cost more than a copy, each chunk with
    /// the position of its first item.
    fn chunks<'i>(&self, items: &'i [Item], per_chunk: usize) -> Vec<(usize, &'i [Item])> {
        let mut chunks = Vec::new();
        let (mut start, mut count) = (0, 0);
        for (i, item) in items.iter().enumerate() {
            if !self.copied(item) {
                count += 1;
                if count == per_chunk {
                    chunks.push((start, &items[start..=i]));
                    (start, count) = (i + 1, 0);
                }
            }
        }
        if start < items.len() {
            chunks.push((start, &items[start..]));
        }
        chunks
    }

    /// Writes items in order; `first` is the position of the first among all items.
    fn part<W: Write>(&self, out: &mut W, items: &[Item], first: usize) -> Result<(), String> {
        for (i, item) in items.iter().enumerate() {
            if self.form == Form::Stream && first + i > 0 {
                out.write_all(b"---\n").map_err(|e| e.to_string())?;
            }
            self.item(out, item).map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    fn item<W: Write>(&self, out: &mut W, item: &Item) -> Result<(), String> {
        let io = |e: std::io::Error| e.to_string();
        match self.emit(item) {
            Emit::Copy(text) => {
                out.write_all(text.as_bytes()).map_err(io)?;
                if !text.is_empty() && !text.ends_with('\n') {
                    out.write_all(b"\n").map_err(io)?;
                }
            }
            Emit::Splice { before, after, column, append } => {
                let Item::Binding(_, _, status) = item else { unreachable!("only bindings are spliced") };
                let status = yaml::write(&StatusEntry { status })?;
                out.write_all(before.as_bytes()).map_err(io)?;
                if append && !before.is_empty() && !before.ends_with('\n') {
                    out.write_all(b"\n").map_err(io)?;
                }
                let skip_first = !append;
                out.write_all(indented(&status, column, skip_first).as_bytes()).map_err(io)?;
                out.write_all(after.as_bytes()).map_err(io)?;
                if !after.is_empty() && !after.ends_with('\n') {
                    out.write_all(b"\n").map_err(io)?;
                }
            }
            Emit::Serialize => {
                if let Item::Input(_, Input::Passed(_)) = item {
                    return Err("an item passed on has no text to copy".into());
                }
                match self.form {
                    Form::Stream => yaml::write_to(&mut *out, item)?,
                    Form::List { indent } => {
                        let text = yaml::write(&[item])?;
                        out.write_all(indented(&text, indent, false).as_bytes()).map_err(io)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// A binding's new top-level `status` entry.
#[derive(Serialize)]
struct StatusEntry<'s> {
    status: &'s InferenceIdentityBindingStatus,
}

/// `text` with `spaces` spaces before every line that is not empty (the first left as it
/// is when `skip_first`). Block scalars keep their meaning: their lines all move alike.
fn indented(text: &str, spaces: usize, skip_first: bool) -> String {
    if spaces == 0 {
        return text.to_string();
    }
    let pad = " ".repeat(spaces);
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if !(i == 0 && skip_first) && line != "\n" {
            out.push_str(&pad);
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indenting_moves_every_line_but_empty_ones() {
        assert_eq!(indented("a: |\n  x\n\n  y\nb: 1\n", 2, false), "  a: |\n    x\n\n    y\n  b: 1\n");
        assert_eq!(indented("status:\n  a: 1\n", 4, true), "status:\n      a: 1\n");
    }

    use crate::parallel::with_cores;
    use serde_json::json;

    /// `costly` items written from their values among as many copied from their text (each
    /// copy marked by a comment), in `form`; and the text they must come out as.
    fn mixed(costly: usize, form: Form) -> (Vec<Item>, String, Vec<ItemText>, String) {
        let dash = |n: usize| match form {
            Form::List { indent } => format!("{}- count: {n}", " ".repeat(indent)),
            Form::Stream => format!("count: {n}"),
        };
        let (mut items, mut text, mut texts, mut expected) =
            (Vec::new(), String::new(), Vec::new(), String::new());
        for n in 0..2 * costly {
            let copy = n % 2 == 1;
            let start = text.len();
            text.push_str(&dash(n));
            if copy {
                text.push_str(" # copied");
            }
            // The last copy has no line end of its own: the writer gives it one.
            if n + 1 < 2 * costly {
                text.push('\n');
            }
            texts.push(ItemText { chunk: start..text.len(), copy, status: None });
            items.push(Item::Input(n, Input::Whole(json!({ "count": n }).into())));
            if form == Form::Stream && n > 0 {
                expected.push_str("---\n");
            }
            expected.push_str(&format!("{}{}\n", dash(n), if copy { " # copied" } else { "" }));
        }
        (items, text, texts, expected)
    }

    fn written(items: &[Item], text: &str, texts: &[ItemText], form: Form, cores: usize) -> String {
        let sources: Vec<Source<'_>> = texts.iter().map(|item| Source { text, item }).collect();
        let mut out = Vec::new();
        with_cores(cores, || super::items(&mut out, items, &sources, form)).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn two_threads_from_the_threshold_on_and_only_with_a_second_core() {
        assert!(!two_threads(PARALLEL_FROM - 1, 8));
        assert!(two_threads(PARALLEL_FROM, 2));
        assert!(!two_threads(PARALLEL_FROM, 1));
        assert!(!two_threads(0, 2));
    }

    #[test]
    fn both_sides_of_the_threshold_write_what_one_thread_writes() {
        for form in [Form::Stream, Form::List { indent: 0 }, Form::List { indent: 2 }] {
            for costly in [1, PARALLEL_FROM - 1, PARALLEL_FROM, PARALLEL_FROM + CHUNKS + 1] {
                let (items, text, texts, expected) = mixed(costly, form);
                let serial = written(&items, &text, &texts, form, 1);
                assert!(serial == expected, "{form:?}, {costly} to serialize, one core");
                let parallel = written(&items, &text, &texts, form, 2);
                assert!(parallel == expected, "{form:?}, {costly} to serialize, two cores");
            }
        }
    }

    /// A reader that closes its end after the first write.
    struct Closed(usize);

    impl Write for Closed {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += 1;
            if self.0 > 1 {
                return Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
            }
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_reader_that_closes_its_end_stops_both_threads_with_an_error() {
        // The second thread used to block on its send, and the run never ended: the write
        // runs apart, so that a hang fails the test instead of stopping it.
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let (items, text, texts, _) = mixed(PARALLEL_FROM + CHUNKS + 1, Form::Stream);
            let sources: Vec<Source<'_>> = texts.iter().map(|item| Source { text: &text, item }).collect();
            let written = with_cores(2, || super::items(&mut Closed(0), &items, &sources, Form::Stream));
            done.send(written).unwrap();
        });
        let written = finished.recv_timeout(std::time::Duration::from_secs(120)).expect("the write ended");
        assert!(written.unwrap_err().to_lowercase().contains("broken pipe"));
    }

    #[test]
    fn one_chunk_below_the_threshold_many_from_it_on() {
        let plan = |costly: usize, copies: usize, cores: usize| {
            let (mut items, mut text, mut texts, _) = mixed(costly, Form::Stream);
            // Only the items to serialize, then `copies` copies.
            items.retain(|item| matches!(item, Item::Input(n, _) if n % 2 == 0));
            for n in 0..copies {
                let start = text.len();
                text.push_str("copied: true\n");
                texts.push(ItemText { chunk: start..text.len(), copy: true, status: None });
                items.push(Item::Input(texts.len() - 1, Input::Whole(json!({ "copied": n }).into())));
            }
            let sources: Vec<Source<'_>> = texts.iter().map(|item| Source { text: &text, item }).collect();
            let writer = Writer { sources: &sources, form: Form::Stream };
            let chunks = writer.plan(&items, cores);
            assert_eq!(chunks.iter().map(|(_, chunk)| chunk.len()).sum::<usize>(), items.len());
            chunks.len()
        };
        assert_eq!(plan(PARALLEL_FROM - 1, 0, 2), 1);
        assert_eq!(plan(PARALLEL_FROM - 1, PARALLEL_FROM + 1, 2), 1, "copies cost nothing");
        assert_eq!(plan(PARALLEL_FROM, 0, 1), 1, "one core");
        assert_eq!(plan(PARALLEL_FROM, 0, 2), PARALLEL_FROM.div_ceil(PARALLEL_FROM.div_ceil(CHUNKS)));
        assert_eq!(plan(0, 3, 2), 1);
    }

    #[test]
    fn chunks_tile_the_items_with_equal_shares_to_serialize() {
        let (items, text, texts, _) = mixed(PARALLEL_FROM + 5, Form::Stream);
        let sources: Vec<Source<'_>> = texts.iter().map(|item| Source { text: &text, item }).collect();
        let writer = Writer { sources: &sources, form: Form::Stream };
        // The items end with a copy, or with one to serialize (the last chunk then full).
        let (ending_in_a_copy, ending_costly) = (&items[..], &items[..items.len() - 1]);
        for (items, per_chunk) in [1, 7, PARALLEL_FROM.div_ceil(CHUNKS)]
            .into_iter()
            .flat_map(|per_chunk| [(ending_in_a_copy, per_chunk), (ending_costly, per_chunk)])
        {
            let chunks = writer.chunks(items, per_chunk);
            let mut next = 0;
            for (i, &(first, chunk)) in chunks.iter().enumerate() {
                assert_eq!(first, next, "chunk {i} starts where the last ended");
                assert!(!chunk.is_empty(), "chunk {i} of {per_chunk} is empty");
                assert!(std::ptr::eq(chunk, &items[first..first + chunk.len()]));
                let costly = chunk.iter().filter(|item| !writer.copied(item)).count();
                if i + 1 < chunks.len() {
                    assert_eq!(costly, per_chunk, "chunk {i}");
                    assert!(!writer.copied(chunk.last().unwrap()), "chunk {i} ends after a costly item");
                } else {
                    assert!(costly <= per_chunk);
                }
                next = first + chunk.len();
            }
            assert_eq!(next, items.len());
        }
    }
}
