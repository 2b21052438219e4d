//! The rules of one binding, in the order of docs/reference.md#order-of-checks (`checks`,
//! `resolve`, `identity`, `served`, `renames`), the conflicts between bindings (`conflict`),
//! and the status they write (`reason`, `status`), with the words of a pool not found
//! (`not_found`).

pub mod checks;
pub mod conflict;
pub mod identity;
pub mod not_found;
pub mod reason;
pub mod renames;
pub mod resolve;
pub mod served;
pub mod status;
