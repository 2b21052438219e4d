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

/// The API group of `api_version`: what stands before its `/`, empty for the core group
/// (`v1`), as the API server splits it (apimachinery `schema.ParseGroupVersion`).
pub fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(group, _)| group)
}
