//! The input's items as the reconcile reads them: which kinds it reads whole (`kinds`), an item
//! whole or reduced to its facts (`input`, `item`, `file_slots`), and what makes input unusable
//! (`unusable`, `lists`) or worth a word (`near_binding`).

pub mod file_slots;
pub mod input;
pub mod item;
pub mod kinds;
pub mod lists;
pub mod near_binding;
pub mod unusable;
