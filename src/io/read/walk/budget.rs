//! What a walk counts as the full reader's budget counts it, the bounds of one walk, and
//! what a walk gives when it cannot vouch for the text.

/// What a walk saw, counted as the full reader's budget counts it.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Mappings, sequences and scalars, keys included.
    pub nodes: usize,
    /// Parser events, comments included.
    pub events: usize,
    /// Bytes of comment text.
    pub comment_bytes: usize,
}

impl Counts {
    pub fn plus(self, other: Counts) -> Counts {
        Counts {
            nodes: self.nodes + other.nodes,
            events: self.events + other.events,
            comment_bytes: self.comment_bytes + other.comment_bytes,
        }
    }

    /// What is left of `self` after `used`, or `None` when `used` is over it.
    pub fn minus(self, used: Counts) -> Option<Counts> {
        Some(Counts {
            nodes: self.nodes.checked_sub(used.nodes)?,
            events: self.events.checked_sub(used.events)?,
            comment_bytes: self.comment_bytes.checked_sub(used.comment_bytes)?,
        })
    }

    pub(super) fn within(&self, limit: &Counts) -> bool {
        self.nodes <= limit.nodes && self.events <= limit.events && self.comment_bytes <= limit.comment_bytes
    }
}

/// Bounds of one walk; past any, the walk is abandoned.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Deepest nesting, the outermost node at level 1.
    pub depth: usize,
    pub counts: Counts,
}

impl Limits {
    /// No bounds: for text the full reader has already held to its limits.
    pub const NONE: Limits = Limits {
        depth: usize::MAX,
        counts: Counts { nodes: usize::MAX, events: usize::MAX, comment_bytes: usize::MAX },
    };
}

/// The walk cannot vouch for the text: it does not read, is not of the shape its place
/// requires, uses anchors, aliases or merge keys where they are refused, or passes a limit.
/// The caller reads the whole input with the exact reader, which also words any error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Abandon;
