//! Writing the items of an output ResourceList as a block sequence at column 0: unchanged
//! input items copied from the input text when their entries were kept ([`Copies`]), the
//! rest serialized, over two threads for large outputs.

use super::passthrough::Copies;
use crate::reconcile::item::Item;
use crate::yaml;
use std::io::Write;

/// Below this many items to serialize, a second thread costs more than it saves.
const PARALLEL_FROM: usize = 2_000;
/// Large outputs are cut into this many chunks with equal shares of serializing (copies
/// cost next to nothing). A second thread serializes every other chunk while this one
/// serializes and writes the rest in order, so at most a few chunks wait as text.
const CHUNKS: usize = 64;

/// Writes `items`, copying those `copies` holds the text of.
pub fn write_items<W: Write>(out: &mut W, items: &[Item], copies: Option<&Copies>) -> Result<(), String> {
    let serialized = items.iter().filter(|item| copied(copies, item).is_none()).count();
    let parallel =
        serialized >= PARALLEL_FROM && std::thread::available_parallelism().is_ok_and(|n| n.get() > 1);
    if !parallel {
        return write_part(out, items, copies);
    }
    let chunks = chunks(items, copies, serialized.div_ceil(CHUNKS));
    let (sender, receiver) = std::sync::mpsc::sync_channel::<Result<Vec<u8>, String>>(1);
    std::thread::scope(|scope| {
        let chunks = &chunks;
        scope.spawn(move || {
            for chunk in chunks.iter().skip(1).step_by(2) {
                let mut buffer = Vec::new();
                let written = write_part(&mut buffer, chunk, copies).map(|()| buffer);
                if sender.send(written).is_err() {
                    break;
                }
            }
        });
        for (i, chunk) in chunks.iter().enumerate() {
            if i % 2 == 0 {
                write_part(&mut *out, chunk, copies)?;
            } else {
                let buffer = receiver.recv().map_err(|_| "the writer thread stopped".to_string())??;
                out.write_all(&buffer).map_err(|e| e.to_string())?;
            }
        }
        Ok(())
    })
}

/// The input text to copy for an item, if any.
fn copied<'c>(copies: Option<&'c Copies>, item: &Item) -> Option<&'c str> {
    copies?.entry_of(item)
}

/// `items` cut after every `per_chunk` items to serialize.
fn chunks<'i>(items: &'i [Item], copies: Option<&Copies>, per_chunk: usize) -> Vec<&'i [Item]> {
    let mut chunks = Vec::new();
    let (mut start, mut count) = (0, 0);
    for (i, item) in items.iter().enumerate() {
        if copied(copies, item).is_none() {
            count += 1;
            if count == per_chunk {
                chunks.push(&items[start..=i]);
                (start, count) = (i + 1, 0);
            }
        }
    }
    if start < items.len() {
        chunks.push(&items[start..]);
    }
    chunks
}

/// Writes items in order: runs of serialized items through one serializer call each.
fn write_part<W: Write>(out: &mut W, items: &[Item], copies: Option<&Copies>) -> Result<(), String> {
    let mut serialize_from = 0;
    for (i, item) in items.iter().enumerate() {
        let (Some(copies), Some(entry)) = (copies, copied(copies, item)) else { continue };
        if serialize_from < i {
            yaml::write_to(&mut *out, &&items[serialize_from..i])?;
        }
        copies.copy(out, entry).map_err(|e| e.to_string())?;
        serialize_from = i + 1;
    }
    if serialize_from < items.len() {
        yaml::write_to(&mut *out, &&items[serialize_from..])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_sequence_written_in_chunks_is_the_sequence_written_whole() {
        let items: Vec<Item> = (0..5_000)
            .map(|i| {
                Item::Input(i, json!({"name": format!("item-{i}"), "text": "a\nb\n", "list": [i, "on"]}))
            })
            .collect();
        let mut chunked = Vec::new();
        write_items(&mut chunked, &items, None).unwrap();
        assert_eq!(String::from_utf8(chunked).unwrap(), yaml::write(&items).unwrap());
    }
}
