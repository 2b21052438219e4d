//! How KServe lays presets and the service over each other, as far as the build reads the
//! result (kserve/kserve aaac4e294dae2c7b1aa1886447793f3aa1c30912,
//! `pkg/controller/v1alpha2/llmisvc/config_merge.go`): each later spec is a strategic merge
//! patch on the earlier (`mergeSpecs`, lines 859-900): mappings merge key by key, a later
//! scalar wins, lists of named entries (containers, init containers) merge by name, other
//! lists are replaced, an unset field changes nothing, and a `$patch` directive in a free-form
//! map replaces or empties the map before it. The merged spec is then a Go
//! template over the service (`ReplaceVariables`): `template.rs` executes the fields the build
//! reads, and says where a field needs the cluster or makes KServe refuse the service.

use super::template::{self, Data, Evaluated};
use super::vocabulary::Note;
use serde_json::{Map, Value};

/// The fields of KServe's types that are free-form maps of strings (`map[string]string`:
/// an object's `labels` and `annotations`, a selector's `matchLabels`, a pod's
/// `nodeSelector`): the API server keeps any key in them, a strategic merge directive among
/// them, where it prunes one from a field of a struct (the CRD's structural schema).
const FREE_FORM: [&str; 4] = ["labels", "annotations", "matchLabels", "nodeSelector"];

/// The key of a strategic merge patch's directive (apimachinery `strategicpatch`,
/// `directiveMarker`).
const DIRECTIVE: &str = "$patch";

/// Lays `over` on `base`; `Err`, why, where KServe's merge fails (a directive it does not
/// take), and then KServe refuses the service (CombineBaseError).
pub fn merge(base: &mut Value, over: &Value) -> Result<(), String> {
    merge_at("spec", base, over)
}

fn merge_at(key: &str, base: &mut Value, over: &Value) -> Result<(), String> {
    match (base, over) {
        (_, Value::Null) => {}
        (Value::Object(base), Value::Object(over)) => {
            // A directive in a free-form map that meets one already set (`mergeMap`,
            // `handleDirectiveInMergeMap`): `replace` puts the map in place of the one
            // before, `delete` empties it, any other value fails. Where nothing was set
            // before, the map is copied whole, the directive with it, as below.
            if FREE_FORM.contains(&key)
                && let Some(directive) = over.get(DIRECTIVE)
            {
                match directive.as_str() {
                    Some("replace") => {
                        *base = over.clone();
                        base.remove(DIRECTIVE);
                    }
                    Some("delete") => base.clear(),
                    _ => {
                        return Err(format!(
                            "its {key} holds {DIRECTIVE}: {directive}, a strategic merge directive KServe's \
                             merge of its presets fails on (only replace and delete are taken)"
                        ));
                    }
                }
                return Ok(());
            }
            for (key, value) in over {
                match base.get_mut(key) {
                    Some(existing) if !existing.is_null() => merge_at(key, existing, value)?,
                    _ if value.is_null() => {}
                    _ => {
                        base.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (Value::Array(base), Value::Array(over)) if named(base) && named(over) => {
            for entry in over {
                match base.iter_mut().find(|b| b.get("name") == entry.get("name")) {
                    Some(existing) => merge_at("", existing, entry)?,
                    None => base.push(entry.clone()),
                }
            }
        }
        (base, over) => *base = over.clone(),
    }
    Ok(())
}

/// Whether every entry of a list is a mapping with a `name`: a list merged by name.
fn named(list: &[Value]) -> bool {
    list.iter().all(|e| e.get("name").is_some_and(Value::is_string))
}

/// The spec of a `v1alpha1` service or preset in `v1alpha2`'s shape, as KServe converts it
/// (`pkg/apis/serving/v1alpha1/llm_inference_service_conversion.go` lines 511-550): the pool's
/// flat `selector` of GAIE's `v1alpha2` becomes `selector.matchLabels`.
pub fn normalised(api_version: &str, spec: &Value) -> Value {
    let mut spec = spec.clone();
    if !api_version.ends_with("/v1alpha1") {
        return spec;
    }
    let selector = spec.pointer_mut("/router/scheduler/pool/spec/selector");
    if let Some(Value::Object(flat)) = selector
        && !flat.contains_key("matchLabels")
    {
        let labels = std::mem::take(flat);
        flat.insert("matchLabels".into(), Value::Object(labels));
    }
    spec
}

/// Why a field's text is not known: what only the cluster has, or a template Go fails on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unread {
    Unknown { action: String, needs: String },
    Fails(String),
}

impl Unread {
    /// The note for `field`, and what follows when its value is unknown.
    pub fn note(&self, field: &str, unknown: &str) -> Note {
        match self {
            Unread::Unknown { action, needs } => Note::warning(format!(
                "{field} holds {action}, which needs {needs}: {unknown}; give the value plainly"
            )),
            Unread::Fails(why) => Note::refusal(format!(
                "{field} holds a template Go fails to execute ({why}): KServe's ReplaceVariables fails \
                 (CombineBaseError); fix the template"
            )),
        }
    }
}

/// A string of the merged spec as KServe's template execution leaves it.
pub fn evaluated(text: &str, data: &Data<'_>) -> Result<String, Unread> {
    match template::evaluate(text, data) {
        Evaluated::Known(text) => Ok(text),
        Evaluated::Unknown { action, needs } => Err(Unread::Unknown { action, needs }),
        Evaluated::Fails(why) => Err(Unread::Fails(why)),
    }
}

/// Labels, or other pairs of strings: key and value.
pub type Pairs = Vec<(String, String)>;

/// The string entries of a mapping at `path` of `spec`, each evaluated; and apart, the key
/// and why of each the build cannot evaluate.
pub fn labels_at(spec: &Value, path: &[&str], data: &Data<'_>) -> (Pairs, Vec<(String, Unread)>) {
    let map = path.iter().try_fold(spec, |v, k| v.get(k)).and_then(Value::as_object);
    let (mut known, mut unknown) = (Vec::new(), Vec::new());
    for (key, value) in map.into_iter().flat_map(Map::iter) {
        let Some(text) = value.as_str() else { continue };
        match evaluated(text, data) {
            Ok(value) => known.push((key.clone(), value)),
            Err(why) => unknown.push((key.clone(), why)),
        }
    }
    (known, unknown)
}
