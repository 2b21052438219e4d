//! `admissionGuard`: whether the run also writes the admission guard, what its bindings do
//! with a request it refuses, and where its objects go (docs/reference.md#admission-guard);
//! validated into the [`AdmissionGuard`] the guard renders with. Which controllers there are
//! and the user names they run under by default are the guard's own table
//! (`reconcile/guard/controllers.rs`), which checks the keys given here
//! (`reconcile::guard::check`).

use super::checks::ConfigError;
use crate::api::names;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The name of the guard's policy, and the start of its other objects' names, by default.
pub const DEFAULT_NAME: &str = "kleym-admission-guard";
/// The namespace of the guard's parameters by default: the kleym operator's own.
pub const DEFAULT_PARAM_NAMESPACE: &str = "kleym-system";
pub const DEFAULT_OUTPUT_PATH: &str = "admission-guard/{name}.yaml";
/// The longest guard name: its bindings are named `<name>-<namespace>-<shard>`, within the
/// 253 characters of an object name.
const LONGEST_NAME: usize = 180;

/// The admission guard: ValidatingAdmissionPolicies that let only the workloads the input
/// declares, and what their controllers make, hold the identities it renders.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Default, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AdmissionGuardSpec {
    /// What the guard's bindings do with a request that would let a pod outside the input's
    /// workloads hold an identity: `Deny` (default) refuses it; `Warn` admits it with a
    /// warning to the client, for a rollout. Given (or any other field of this section given),
    /// the run writes the guard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<GuardAction>,
    /// The guard's ValidatingAdmissionPolicy; its bindings and parameters are named
    /// `<name>-<namespace>` (default `kleym-admission-guard`). Give each package its own
    /// name when several packages guard one cluster.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 180))]
    pub name: Option<String>,
    /// The namespace of the ConfigMaps the bindings take as parameters (default
    /// `kleym-system`): one whose ConfigMaps only cluster administrators and the GitOps
    /// applier may write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub param_namespace: Option<String>,
    /// File path of new guard objects, as `outputPath` (default `admission-guard/{name}.yaml`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_path: Option<String>,
    /// The user names controllers send their requests under, by controller, over the
    /// defaults (kube-controller-manager's per-controller service accounts, the KServe, LWS and
    /// Argo Rollouts controllers' as their manifests install them). In the string form
    /// `controller=user,controller=user`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controllers: Option<BTreeMap<String, String>>,
}

/// What a guard binding does with a request it refuses.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GuardAction {
    /// The API server refuses the request.
    #[default]
    Deny,
    /// The API server admits it, and warns the client.
    Warn,
}

/// The guard's settings, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdmissionGuard {
    pub action: GuardAction,
    pub name: String,
    pub param_namespace: String,
    pub output_path: String,
    /// The user names given, by controller; the table's defaults for the others.
    pub controllers: BTreeMap<String, String>,
    /// Where `controllers` was given, for a message about one of its keys.
    pub controllers_field: String,
}

/// Validates the `admissionGuard` section; `field` names a setting in messages. Absent: no
/// guard.
pub(super) fn guard(
    spec: Option<AdmissionGuardSpec>,
    field: &dyn Fn(&str) -> String,
    output_path: impl Fn(&str) -> Result<(), String>,
) -> Result<Option<AdmissionGuard>, ConfigError> {
    let Some(g) = spec else { return Ok(None) };
    let name = g.name.unwrap_or_else(|| DEFAULT_NAME.to_string());
    let longest = names::dns1123_subdomain(&name).and_then(|()| {
        if name.len() > LONGEST_NAME {
            return Err(format!("must be at most {LONGEST_NAME} characters, has {}", name.len()));
        }
        Ok(())
    });
    longest.map_err(|e| ConfigError::new(field("admissionGuard.name"), format!("{name:?} {e}")))?;
    let param_namespace = g.param_namespace.unwrap_or_else(|| DEFAULT_PARAM_NAMESPACE.to_string());
    names::dns1123_label(&param_namespace).map_err(|e| {
        ConfigError::new(field("admissionGuard.paramNamespace"), format!("{param_namespace:?} {e}"))
    })?;
    let path = g.output_path.unwrap_or_else(|| DEFAULT_OUTPUT_PATH.to_string());
    output_path(&path).map_err(|m| ConfigError::new(field("admissionGuard.outputPath"), m))?;
    let controllers = g.controllers.unwrap_or_default();
    let controllers_field = field("admissionGuard.controllers");
    for (key, user) in &controllers {
        if user.is_empty() || user.trim() != user || user.chars().any(char::is_control) {
            return Err(ConfigError::new(
                &controllers_field,
                format!(
                    "the user name {user:?} of {key} is empty, has leading or trailing whitespace or a \
                     control character: give it as the API server authenticates the controller"
                ),
            ));
        }
    }
    Ok(Some(AdmissionGuard {
        action: g.action.unwrap_or_default(),
        name,
        param_namespace,
        output_path: path,
        controllers,
        controllers_field,
    }))
}

#[cfg(test)]
mod tests {
    use super::super::tests::with_all;
    use super::*;

    #[test]
    fn the_guard_is_off_unless_its_section_is_given_and_denies_by_default() {
        assert_eq!(with_all(&[]).unwrap().admission_guard, None);
        let on = with_all(&[("admissionGuard.action", "Deny")]).unwrap().admission_guard.unwrap();
        assert_eq!(
            (on.action, on.name.as_str(), on.param_namespace.as_str(), on.output_path.as_str()),
            (GuardAction::Deny, DEFAULT_NAME, DEFAULT_PARAM_NAMESPACE, DEFAULT_OUTPUT_PATH)
        );
        let named = with_all(&[("admissionGuard.name", "team-a-guard")]).unwrap().admission_guard.unwrap();
        assert_eq!((named.action, named.name.as_str()), (GuardAction::Deny, "team-a-guard"));
        let warn = with_all(&[("admissionGuard.action", "Warn")]).unwrap().admission_guard.unwrap();
        assert_eq!(warn.action, GuardAction::Warn);
    }

    #[test]
    fn names_and_user_names_are_checked_naming_the_setting() {
        for (key, value, why) in [
            ("admissionGuard.name", "Guard", "DNS-1123 subdomain"),
            ("admissionGuard.paramNamespace", "a.b", "DNS-1123 label"),
            ("admissionGuard.outputPath", "../x.yaml", "holds \"..\""),
            ("admissionGuard.controllers", "deployment= ", "is empty"),
        ] {
            let err = with_all(&[(key, value)]).unwrap_err();
            assert_eq!(err.field, format!("--{key}"), "{value}");
            assert!(err.message.contains(why), "{value}: {err}");
        }
        let long = "g".repeat(181);
        let err = with_all(&[("admissionGuard.name", &long)]).unwrap_err();
        assert!(err.message.contains("at most 180"), "{err}");
        let given = with_all(&[("admissionGuard.controllers", "replicaset=system:kube-controller-manager")])
            .unwrap()
            .admission_guard
            .unwrap();
        assert_eq!(given.controllers["replicaset"], "system:kube-controller-manager");
        assert_eq!(given.controllers_field, "--admissionGuard.controllers");
    }
}
