//! The functionConfig (docs/reference.md#function-configuration): the typed
//! `RenderInferenceIdentity` resource and the `ConfigMap` form, strict validation naming
//! the field, and the JSON schema.

use crate::api::cluster_spiffe_id::LABEL_CLASS_NAME;
use crate::api::fields::type_name;
use k8s_openapi::jiff::Timestamp;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

mod checks;
mod guard;
mod settings;
mod spire;

use checks::{CLASS_NAME_PATTERN, needs_when_true};
pub use checks::{ConfigError, validate_class_name};
pub use guard::{
    AdmissionGuard, AdmissionGuardSpec, DEFAULT_NAME as DEFAULT_GUARD_NAME,
    DEFAULT_OUTPUT_PATH as DEFAULT_GUARD_OUTPUT_PATH,
    DEFAULT_PARAM_NAMESPACE as DEFAULT_GUARD_PARAM_NAMESPACE, GuardAction,
};

use settings::set_from_string;
pub use settings::{Form, Setting, settings};
pub use spire::{DEFAULT_IGNORE_NAMESPACES, SpireManager, SpireManagerSpec};

pub const API_VERSION: &str = "fn.kleym.sonda.red/v1alpha1";
pub const KIND: &str = "RenderInferenceIdentity";
pub const DEFAULT_OUTPUT_PATH: &str = "clusterspiffeids/{name}.yaml";

/// Typed functionConfig of render-inference-identity.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(title = "RenderInferenceIdentity", transform = |s: &mut schemars::Schema| require(s, "spec"))]
pub struct RenderInferenceIdentity {
    /// Always `fn.kleym.sonda.red/v1alpha1`.
    #[schemars(extend("const" = API_VERSION))]
    pub api_version: String,
    /// Always `RenderInferenceIdentity`.
    #[schemars(extend("const" = KIND))]
    pub kind: String,
    /// Free-form object metadata; not read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    #[serde(default)]
    pub spec: ConfigSpec,
}

/// The settings; the ConfigMap form carries the same keys under `data`, as strings.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(transform = |s: &mut schemars::Schema| require(s, "trustDomain"))]
#[schemars(transform = |s: &mut schemars::Schema| needs_when_true(s, "classNameLabel", "className"))]
pub struct ConfigSpec {
    /// SPIRE trust domain (required), for example `example.org`: lowercase letters,
    /// digits, `.`, `-`, `_`; no scheme, no path. (Only a `render --config` file may leave it
    /// to `--trust-domain` or `ARGOCD_ENV_TRUST_DOMAIN`.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(required, length(min = 1, max = 255), pattern(TRUST_DOMAIN_PATTERN))]
    pub trust_domain: Option<String>,
    /// Written to `spec.className` of every ClusterSPIFFEID; omitted when empty. No leading
    /// or trailing whitespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(pattern(CLASS_NAME_PATTERN))]
    pub class_name: Option<String>,
    /// Also label every ClusterSPIFFEID `spire.spiffe.io/class-name: <className>`, as a
    /// SPIRE Controller Manager with `filterByClassName` selects them (default false: the
    /// kleym operator's objects carry no such label). Requires `className`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class_name_label: Option<bool>,
    /// `Report` (default): failing bindings give warnings, exit 0. `Fail`: errors, exit 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_policy: Option<FailurePolicy>,
    /// Workload coverage findings: `Report` (default) gives them as results, exit
    /// unchanged; `Fail` makes warnings errors and exits 1 (a CI gate); `Ignore` looks for
    /// none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload_policy: Option<WorkloadPolicy>,
    /// Remove managed ClusterSPIFFEIDs whose binding is not in the input (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prune: Option<bool>,
    /// APIs served by the target cluster, as `group/version` or `group/version/Kind`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(inner(pattern(API_VERSION_PATTERN)))]
    pub api_versions: Option<Vec<String>>,
    /// RFC 3339 time written as `lastTransitionTime` of conditions that change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(pattern(TIME_PATTERN))]
    pub transition_time: Option<String>,
    /// File path of new outputs; `{name}` is replaced by the object name. A relative path
    /// with `/` separators ending in `.yaml` or `.yml`: segments of ASCII letters, digits,
    /// `.`, `_`, `-` and `{name}`, none starting or ending with `.`, no `..` anywhere, no
    /// segment `Kptfile` (in any case); in kpt mode never a file that holds an input item
    /// (other than this function's outputs) or the functionConfig, nor a folder where such
    /// a file stands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(pattern(OUTPUT_PATH_PATTERN))]
    #[schemars(extend("not" = {"type": "string", "pattern": KPTFILE_SEGMENT_PATTERN}))]
    pub output_path: Option<String>,
    /// What a rendered ClusterSPIFFEID selects: `Pool` (default) the operator's objects
    /// (`podSelector` = the pool's labels); `Binding` also adds `namespaceSelector`
    /// `kubernetes.io/metadata.name: <namespace>` and the variant label to the
    /// `podSelector`, so SPIRE makes entries only for the binding's own pods.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector_scope: Option<SelectorScope>,
    /// The SPIRE Controller Manager that will read the outputs, as its configuration
    /// sets it. Given, an output it would ignore is an `IgnoredBySpire` finding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spire_controller_manager: Option<SpireManagerSpec>,
    /// The admission guard (off unless given): ValidatingAdmissionPolicies, their bindings and
    /// parameters, written beside the ClusterSPIFFEIDs, that let only the workloads of the
    /// input, and what their controllers make of them, hold the identities rendered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admission_guard: Option<AdmissionGuardSpec>,
}

/// What a rendered ClusterSPIFFEID selects (docs/reference.md#what-spire-will-do).
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SelectorScope {
    /// The operator's objects: the pool's pods, in every namespace.
    #[default]
    Pool,
    /// Only the pods of the binding's namespace that carry its variant label.
    Binding,
}

/// The patterns of the schema, for editors: each says what the validation below accepts.
const TRUST_DOMAIN_PATTERN: &str = r"^[a-z0-9._-]+$";
const API_VERSION_PATTERN: &str = r"^[^/\s]+(/[^/\s]+){0,2}$";
/// An RFC 3339 time with its offset, or empty (unset).
const TIME_PATTERN: &str =
    r"^$|^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$";
/// Segments of ASCII letters, digits, `_`, `-` and `{name}`, joined by single dots inside
/// a segment (none at its ends, no `..`), the last ending in `.yaml` or `.yml`.
const OUTPUT_PATH_PATTERN: &str = r"^(([A-Za-z0-9_-]|\{name\})+(\.([A-Za-z0-9_-]|\{name\})+)*/)*([A-Za-z0-9_-]|\{name\})+(\.([A-Za-z0-9_-]|\{name\})+)*\.ya?ml$";
/// A segment `Kptfile`, in any case.
const KPTFILE_SEGMENT_PATTERN: &str = "(^|/)[Kk][Pp][Tt][Ff][Ii][Ll][Ee](/|$)";

#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FailurePolicy {
    #[default]
    Report,
    Fail,
}

/// What workload coverage findings do (docs/reference.md#workload-coverage).
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WorkloadPolicy {
    /// Findings are results; the exit code is unchanged.
    #[default]
    Report,
    /// Warning findings are errors, and the run exits 1.
    Fail,
    /// No findings.
    Ignore,
}

/// The validated configuration the reconcile runs with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    pub trust_domain: Option<String>,
    pub class_name: Option<String>,
    /// `classNameLabel`: the outputs carry `spire.spiffe.io/class-name: <className>`.
    pub class_name_label: bool,
    pub failure_policy: FailurePolicy,
    pub workload_policy: WorkloadPolicy,
    pub prune: bool,
    pub api_versions: Vec<String>,
    pub transition_time: Option<Timestamp>,
    pub output_path: String,
    pub selector_scope: SelectorScope,
    pub spire: SpireManager,
    /// Where workloads whose items name no namespace land (`--namespace`, an Argo CD
    /// application's `ARGOCD_APP_NAMESPACE`); `None`: in any namespace they may land in.
    /// Given by the caller, never by a functionConfig: it says where the manifests are
    /// applied, not how the function renders them.
    pub namespace: Option<String>,
    /// The admission guard, when the run writes it.
    pub admission_guard: Option<AdmissionGuard>,
}

impl Config {
    /// The value of the `spire.spiffe.io/class-name` label every output carries, if any.
    pub fn class_label(&self) -> Option<&str> {
        self.class_name.as_deref().filter(|_| self.class_name_label)
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            trust_domain: None,
            class_name: None,
            class_name_label: false,
            failure_policy: FailurePolicy::Report,
            workload_policy: WorkloadPolicy::Report,
            prune: true,
            api_versions: Vec::new(),
            transition_time: None,
            output_path: DEFAULT_OUTPUT_PATH.to_string(),
            selector_scope: SelectorScope::Pool,
            spire: SpireManager::default(),
            namespace: None,
            admission_guard: None,
        }
    }
}

impl std::error::Error for ConfigError {}

/// Reads and validates the functionConfig of a ResourceList (absent: all defaults).
pub fn from_function_config(value: Option<&Value>) -> Result<Config, ConfigError> {
    with_overrides(value, &[])
}

/// A setting given outside the functionConfig (a command-line flag or an environment
/// variable): the config field, where it came from (for messages), and its text.
#[derive(Debug, Clone)]
pub struct Override {
    pub key: &'static str,
    pub source: String,
    pub value: String,
}

/// Reads the functionConfig, lays the overrides over it, and validates the result.
pub fn with_overrides(value: Option<&Value>, overrides: &[Override]) -> Result<Config, ConfigError> {
    let (mut spec, prefix) = spec_of(value)?;
    let mut sources: Vec<(&str, &str)> = Vec::new();
    for o in overrides {
        set_from_string(&mut spec, o.key, &o.value, &o.source)?;
        sources.push((o.key, &o.source));
    }
    let field = |name: &str| {
        sources
            .iter()
            .rev()
            .find(|(key, _)| *key == name)
            .map_or_else(|| format!("{prefix}{name}"), |(_, source)| source.to_string())
    };
    validate(spec, &field)
}

/// The settings of either form, with the prefix that names its fields in messages.
fn spec_of(value: Option<&Value>) -> Result<(ConfigSpec, &'static str), ConfigError> {
    let map = match value {
        None | Some(Value::Null) => return Ok((ConfigSpec::default(), "spec.")),
        Some(Value::Object(map)) => map,
        Some(other) => {
            return Err(ConfigError::new("", format!("must be a mapping, not a {}", type_name(other))));
        }
    };
    // Any object with `items`, even null, is a List to kubectl and Argo CD, which apply each
    // item (apimachinery `unstructuredJSONScheme.decode`); the config's items are never read.
    if map.contains_key("items") {
        return Err(ConfigError::new(
            "items",
            "makes the config a List to kubectl and Argo CD, which apply each of its items, and this \
             function reads none of them: remove it, and put any object it holds in a manifest of its own",
        ));
    }
    let api_version = map.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = map.get("kind").and_then(Value::as_str).unwrap_or("");
    match (api_version, kind) {
        ("v1", "ConfigMap") => Ok((config_map_spec(map)?, "data.")),
        (API_VERSION, KIND) => {
            let typed: RenderInferenceIdentity =
                serde_path_to_error::deserialize(&Value::Object(map.clone()))
                    .map_err(|e| ConfigError::new(e.path().to_string(), e.inner().to_string()))?;
            Ok((typed.spec, "spec."))
        }
        _ => Err(unsupported_type(api_version, kind)),
    }
}

/// The error for a functionConfig of another type, under the field at fault: `apiVersion`
/// when the kind is one of the two forms, `kind` otherwise.
fn unsupported_type(api_version: &str, kind: &str) -> ConfigError {
    let wanted = match kind {
        KIND => API_VERSION,
        "ConfigMap" => "v1",
        _ => {
            return ConfigError::new(
                "kind",
                format!("{api_version}/{kind} is not supported: use {API_VERSION} {KIND}, or a v1 ConfigMap"),
            );
        }
    };
    let message = if api_version.is_empty() {
        format!("is required: use {wanted} for kind {kind}")
    } else {
        format!("{api_version:?} is not supported for kind {kind}: use {wanted}")
    };
    ConfigError::new("apiVersion", message)
}

fn config_map_spec(map: &serde_json::Map<String, Value>) -> Result<ConfigSpec, ConfigError> {
    // kubectl and Argo CD apply a config file in the folders as the ConfigMap it is: a field
    // this function does not read (`binaryData`) would reach the cluster unjudged.
    if let Some(field) =
        map.keys().find(|k| !matches!(k.as_str(), "apiVersion" | "kind" | "metadata" | "data"))
    {
        return Err(ConfigError::new(
            field.as_str(),
            "is not read by this function, yet kubectl and Argo CD apply the config file as a ConfigMap \
             holding it: remove it",
        ));
    }
    let mut spec = ConfigSpec::default();
    let data = match map.get("data") {
        None | Some(Value::Null) => return Ok(spec),
        Some(Value::Object(data)) => data,
        Some(other) => {
            return Err(ConfigError::new("data", format!("must be a mapping, not a {}", type_name(other))));
        }
    };
    for (key, value) in data {
        let field = format!("data.{key}");
        let Value::String(text) = value else {
            return Err(ConfigError::new(
                field,
                format!("must be a string (ConfigMap data holds strings), not a {}", type_name(value)),
            ));
        };
        set_from_string(&mut spec, key, text, &field)?;
    }
    Ok(spec)
}

fn validate(spec: ConfigSpec, field: &dyn Fn(&str) -> String) -> Result<Config, ConfigError> {
    let trust_domain = spec.trust_domain.filter(|s| !s.is_empty());
    if let Some(td) = &trust_domain {
        validate_trust_domain(td).map_err(|m| ConfigError::new(field("trustDomain"), m))?;
    }
    let api_versions = spec.api_versions.unwrap_or_default();
    for (i, entry) in api_versions.iter().enumerate() {
        validate_api_version(entry)
            .map_err(|m| ConfigError::new(format!("{}[{i}]", field("apiVersions")), m))?;
    }
    let transition_time = match spec.transition_time.filter(|s| !s.is_empty()) {
        None => None,
        Some(text) => Some(parse_time(&text).map_err(|m| ConfigError::new(field("transitionTime"), m))?),
    };
    let class_name = spec.class_name.filter(|s| !s.is_empty());
    if let Some(class) = &class_name {
        validate_class_name(class).map_err(|m| ConfigError::new(field("className"), m))?;
    }
    let class_name_label = spec.class_name_label == Some(true);
    if class_name_label {
        let class = class_name.as_deref().ok_or_else(|| {
            ConfigError::new(
                field("classNameLabel"),
                format!("requires className: the label {LABEL_CLASS_NAME} carries the outputs' class"),
            )
        })?;
        crate::api::names::label_value(class).map_err(|e| {
            ConfigError::new(
                field("classNameLabel"),
                format!(
                    "className {class:?} is not a label value ({e}), so {LABEL_CLASS_NAME} cannot carry it"
                ),
            )
        })?;
    }
    let output_path = spec.output_path.unwrap_or_else(|| DEFAULT_OUTPUT_PATH.to_string());
    validate_output_path(&output_path).map_err(|m| ConfigError::new(field("outputPath"), m))?;
    let spire = spire::manager(spec.spire_controller_manager, field)?;
    let admission_guard = guard::guard(spec.admission_guard, field, validate_output_path)?;
    Ok(Config {
        trust_domain,
        class_name,
        class_name_label,
        failure_policy: spec.failure_policy.unwrap_or_default(),
        workload_policy: spec.workload_policy.unwrap_or_default(),
        prune: spec.prune.unwrap_or(true),
        api_versions,
        transition_time,
        output_path,
        selector_scope: spec.selector_scope.unwrap_or_default(),
        spire,
        namespace: None,
        admission_guard,
    })
}

/// A bare SPIFFE trust domain name: lowercase letters, digits, `.`, `-`, `_`.
pub fn validate_trust_domain(td: &str) -> Result<(), String> {
    if td.starts_with("spiffe://") || td.contains("://") {
        return Err(format!("{td:?} must be a bare trust domain name, without a scheme such as spiffe://"));
    }
    if td.contains('/') {
        return Err(format!("{td:?} must be a bare trust domain name, without a path"));
    }
    if let Some(c) =
        td.chars().find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '-' | '_')))
    {
        return Err(format!(
            "{td:?} has the character {c:?}: a trust domain holds only lowercase letters, digits, '.', '-' and '_'"
        ));
    }
    spiffe::TrustDomain::new(td).map(|_| ()).map_err(|e| format!("{td:?} is not a valid trust domain: {e}"))
}

/// `version`, `group/version` or `group/version/Kind`, without spaces or empty parts.
pub fn validate_api_version(entry: &str) -> Result<(), String> {
    let parts: Vec<&str> = entry.split('/').collect();
    let ok = (1..=3).contains(&parts.len())
        && parts.iter().all(|p| !p.is_empty() && !p.chars().any(char::is_whitespace));
    if ok { Ok(()) } else { Err(format!("{entry:?} is not group/version or group/version/Kind")) }
}

/// An RFC 3339 time such as `2026-01-02T03:04:05Z`.
pub fn parse_time(text: &str) -> Result<Timestamp, String> {
    text.parse::<Timestamp>()
        .map_err(|e| format!("{text:?} is not an RFC 3339 time such as 2026-01-02T03:04:05Z: {e}"))
}

/// What `outputPath` may be, for its messages.
const OUTPUT_PATH_RULE: &str = "Give a relative path to a .yaml or .yml file, such as the default \
     clusterspiffeids/{name}.yaml, whose names hold only ASCII letters, digits, '.', '_', '-' and \
     {name}, none starting or ending with '.'";

/// Where kpt may write new outputs (docs/reference.md#outputpath): a path of portable
/// names ending in `.yaml` or `.yml`, so that it names no package file that is not an input
/// (`README.md`, `schema.json`, `.krmignore`, `.git/config`), no Kptfile or folder of one
/// in any case (a case-insensitive disk takes `kptfile` for `Kptfile`), and nothing kpt
/// refuses after the function has run.
fn validate_output_path(path: &str) -> Result<(), String> {
    let refuse = |why: String| Err(format!("{why}. {OUTPUT_PATH_RULE}"));
    if path.is_empty() {
        return refuse("must not be empty".into());
    }
    if path.starts_with('/') || path.contains('\\') {
        return refuse(format!("{path:?} must be a relative path with '/' separators"));
    }
    let names = path.replace("{name}", "n");
    if let Some(c) =
        names.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '/')))
    {
        return refuse(format!("{path:?} holds {c:?}, which is not a portable file name character"));
    }
    // kpt (kyaml's package writer) refuses to write any path that holds `..`, even inside
    // a name ("resource must be written under package"), after the function has run.
    if path.contains("..") {
        return refuse(format!("{path:?} holds \"..\": kpt refuses to write a file whose path holds it"));
    }
    if path.split('/').any(|seg| seg.is_empty() || seg.starts_with('.') || seg.ends_with('.')) {
        return refuse(format!(
            "{path:?} has an empty name or one starting or ending with '.': hidden files and folders \
             (.git, .krmignore) are no outputs"
        ));
    }
    if path.split('/').any(|seg| seg.eq_ignore_ascii_case("Kptfile")) {
        return refuse(format!(
            "{path:?} names a Kptfile (in any case, as a case-insensitive disk compares names): \
             outputs would go into or under the package's own Kptfile"
        ));
    }
    if !(path.ends_with(".yaml") || path.ends_with(".yml")) {
        return refuse(format!(
            "{path:?} does not end in .yaml or .yml: kpt would replace a package file that is not an \
             input (README.md, schema.json) with the outputs"
        ));
    }
    Ok(())
}

/// The `lastTransitionTime` of changed conditions (docs/reference.md#timestamps):
/// `transitionTime`, else `SOURCE_DATE_EPOCH` (seconds, as the environment gives it), else
/// the Unix epoch. Never the wall clock.
pub fn transition_time(config: &Config, source_date_epoch: Option<&str>) -> Result<Timestamp, ConfigError> {
    if let Some(t) = config.transition_time {
        return Ok(t);
    }
    match source_date_epoch.map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(Timestamp::UNIX_EPOCH),
        Some(text) => {
            text.parse::<i64>().ok().and_then(|s| Timestamp::from_second(s).ok()).ok_or_else(|| ConfigError {
                field: "SOURCE_DATE_EPOCH".into(),
                message: format!("{text:?} is not a number of seconds since the Unix epoch"),
            })
        }
    }
}

/// Lists `field` among the required properties of an object schema, and drops its default:
/// what the derive cannot say of a field serde lets default, whose absence fails the run.
fn require(schema: &mut schemars::Schema, field: &str) {
    if let Some(required) =
        schema.ensure_object().entry("required").or_insert_with(|| Value::Array(Vec::new())).as_array_mut()
        && !required.iter().any(|f| f == field)
    {
        required.push(field.into());
    }
    if let Some(property) =
        schema.get_mut("properties").and_then(|p| p.get_mut(field)).and_then(Value::as_object_mut)
    {
        property.remove("default");
    }
}

/// The JSON schema of the typed functionConfig.
pub fn json_schema() -> Value {
    serde_json::to_value(schemars::schema_for!(RenderInferenceIdentity)).expect("schema serializes")
}

#[cfg(test)]
mod tests {
    use super::{Config, ConfigError, Override, validate_output_path, with_overrides};

    /// The configuration of these settings, each given as its flag (`--key`).
    pub(super) fn with_all(settings: &[(&'static str, &str)]) -> Result<Config, ConfigError> {
        let overrides: Vec<Override> = settings
            .iter()
            .map(|(key, value)| Override { key, source: format!("--{key}"), value: value.to_string() })
            .collect();
        with_overrides(None, &overrides)
    }

    #[test]
    fn the_class_label_needs_a_class_name_that_is_a_label_value() {
        let on = with_all(&[("className", "spire-system-spire"), ("classNameLabel", "true")]).unwrap();
        assert_eq!(on.class_label(), Some("spire-system-spire"));
        let off = with_all(&[("className", "spire-system-spire")]).unwrap();
        assert_eq!(off.class_label(), None, "off by default: the operator's objects carry no such label");
        for settings in [&[("classNameLabel", "true")][..], &[("className", ""), ("classNameLabel", "true")]]
        {
            let err = with_all(settings).unwrap_err();
            assert_eq!(err.field, "--classNameLabel");
            assert!(err.message.starts_with("requires className"), "{err}");
        }
        let err = with_all(&[("className", "a:b"), ("classNameLabel", "true")]).unwrap_err();
        assert!(err.message.contains("\"a:b\" is not a label value"), "{err}");
    }

    #[test]
    fn a_config_with_items_is_refused_as_the_list_kubectl_applies() {
        for config in [
            serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {}, "items": []}),
            serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "items": null}),
            serde_json::json!({"apiVersion": super::API_VERSION, "kind": super::KIND, "items": [{}]}),
        ] {
            let err = with_overrides(Some(&config), &[]).unwrap_err();
            assert_eq!(err.field, "items", "{config}");
            assert!(err.message.contains("a List to kubectl"), "{err}");
        }
        let plain = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {}});
        assert!(with_overrides(Some(&plain), &[]).is_ok());
        // Nor is any field of a ConfigMap the function does not read.
        let binary =
            serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "binaryData": {"a": "eA=="}});
        assert_eq!(with_overrides(Some(&binary), &[]).unwrap_err().field, "binaryData");
    }

    #[test]
    fn output_paths_name_yaml_files_of_portable_names_only() {
        for ok in ["clusterspiffeids/{name}.yaml", "all.yml", "{name}/id.yaml", "A_b-C.9/{name}.v1.yaml"] {
            assert_eq!(validate_output_path(ok), Ok(()), "{ok}");
        }
        for (bad, why) in [
            ("", "must not be empty"),
            ("/abs/{name}.yaml", "relative"),
            ("a\\b.yaml", "relative"),
            ("my outputs/{name}.yaml", "holds ' '"),
            ("ünï/{name}.yaml", "holds 'ü'"),
            ("{nam}.yaml", "holds '{'"),
            ("..{name}.yaml", "holds \"..\""),
            ("a//b.yaml", "empty name"),
            ("./a.yaml", "starting or ending with '.'"),
            (".git/config", "starting or ending with '.'"),
            (".krmignore", "starting or ending with '.'"),
            ("a./b.yaml", "starting or ending with '.'"),
            ("Kptfile", "names a Kptfile"),
            ("kptfile/{name}.yaml", "names a Kptfile"),
            ("a/KPTFILE/b.yml", "names a Kptfile"),
            ("README.md", "does not end in .yaml or .yml"),
            ("schema.json", "does not end in .yaml or .yml"),
            ("x.YAML", "does not end in .yaml or .yml"),
        ] {
            let message = validate_output_path(bad).expect_err(bad);
            assert!(message.contains(why), "{bad}: {message}");
            assert!(message.contains("Give a relative path to a .yaml or .yml file"), "{bad}: {message}");
        }
    }
}
