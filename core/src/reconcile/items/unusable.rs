//! Input that cannot be reconciled at all: the one error every rule that refuses input
//! returns, and the edges word for their mode.

/// Input that cannot be reconciled at all: the item at fault and what is wrong with it. The
/// edges name the item as their mode knows it (an entry of a ResourceList, a document of a
/// file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// Position of the item in the input.
    pub item: usize,
    /// What is wrong, without the item's place. It may quote input: the edges escape control
    /// characters where they print it.
    pub message: String,
    /// For an item that appears twice, the position of its first appearance: the edges name
    /// both places.
    pub first: Option<usize>,
}

impl InputError {
    /// An item that repeats the one at `first`.
    pub fn repeating(item: usize, first: usize, message: String) -> Self {
        InputError { item, message, first: Some(first) }
    }
}

impl From<(usize, String)> for InputError {
    fn from((item, message): (usize, String)) -> Self {
        InputError { item, message, first: None }
    }
}
