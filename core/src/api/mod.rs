//! The Kubernetes objects the function reads and writes.

pub mod admission;
pub mod binding;
pub mod cluster_spiffe_id;
pub mod conditions;
pub mod crd;
pub mod fields;
pub mod kept;
pub mod labels;
pub mod names;
pub mod object_meta;
pub mod pool;
pub mod value;
