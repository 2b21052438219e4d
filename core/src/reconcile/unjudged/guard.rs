//! The admission guard as committed (its objects applied as they are in the files, when
//! they are not what this run renders), and the workloads that run as an account it trusts
//! for a controller.

use super::{Unjudged, record};
use crate::api::admission::{GuardObject, ObjectKey};
use crate::api::value::Value;
use crate::reconcile::items::input::Input;
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// The records of the guard `guard` as committed among `items`, against `fresh`, the
/// objects this run renders for it. A folder applied as committed (kubectl, an Argo CD
/// directory application, `kpt live apply`) applies the guard's files as they are: one whose
/// `spec` or `data` (all the API server's admission plugin reads) differs from its fresh
/// render may admit what the render denies, and one the files lack leaves its namespace
/// unguarded. None when the input commits none of the guard's objects: then the render is
/// what is applied, and `diff` stops a HEAD that no longer commits what BASE did.
pub fn edits(items: &[Input], guard: &str, fresh: &[GuardObject]) -> Edits {
    let committed: Vec<(usize, &Value, ObjectKey)> = items
        .iter()
        .enumerate()
        .filter_map(|(at, item)| {
            let (key, owner) = item.admission()?;
            (owner == Some(guard)).then_some((at, item.value()?, key))
        })
        .collect();
    let Some(&(anchor, anchor_value, _)) = committed.first() else {
        return Edits { committed: false, records: Vec::new() };
    };
    let by_key: HashMap<&ObjectKey, (usize, &Value)> =
        committed.iter().map(|(at, value, key)| (key, (*at, *value))).collect();
    let mut out = Vec::new();
    for object in fresh {
        let key = object.key();
        let (kind, name) = (object.kind(), &object.metadata().name);
        let Some(&(at, value)) = by_key.get(&key) else {
            out.push(record(
                anchor,
                anchor_value,
                format!("{kind} {name}"),
                format!(
                    "the admission guard {guard:?} is committed without its {kind} {name}: applied as committed \
                     (kubectl apply, an Argo CD directory application, kpt live apply), what that object \
                     denies is admitted; render the folder again"
                ),
                &[],
                &[],
            ));
            continue;
        };
        let Ok(rendered) = serde_json::to_value(object) else { continue };
        let Ok(written) = serde_json::to_value(value) else { continue };
        if let Some(field) = edited(&rendered, &written) {
            out.push(record(
                at,
                value,
                field.to_string(),
                format!(
                    "the admission guard's {kind} {name}, as committed, is not what renders now: applied as \
                     committed (kubectl apply, an Argo CD directory application, kpt live apply), it may admit \
                     what the render denies; render the folder again, or drop the edit"
                ),
                &[],
                &[],
            ));
        }
    }
    Edits { committed: true, records: out }
}

/// The first field of a guard object as committed (`written`) that is not its render, in the
/// order the API server and the appliers read them: `spec` and `data` (all the admission
/// plugin reads), any other field beside `metadata` (an `items` field makes kubectl and Argo CD
/// take the object for a List and never apply it: apimachinery `unstructured/helpers.go`,
/// `decodeToList`; Argo CD `IsList`), then each field of its `metadata`: appliers skip, defer or
/// delete an object by its annotations (`config.kubernetes.io/local-config`, Argo CD's hooks and
/// sync options), `kubectl apply --prune -l` by its labels, and the garbage collector deletes
/// one whose `ownerReferences` name no live owner (kubernetes
/// `pkg/controller/garbagecollector/garbagecollector.go`, `attemptToDeleteItem`). The
/// annotations a reader adds to say where an item sits ([`super::where_it_sits`]) are no edit.
fn edited(rendered: &serde_json::Value, written: &serde_json::Value) -> Option<String> {
    let keys = |v: Option<&serde_json::Value>| {
        v.and_then(|v| v.as_object()).into_iter().flat_map(|m| m.keys().cloned()).collect::<Vec<_>>()
    };
    let sorted_keys = |a: Option<&serde_json::Value>, b: Option<&serde_json::Value>, first: &[&str]| {
        let mut others: Vec<String> =
            keys(a).into_iter().chain(keys(b)).filter(|k| !first.contains(&k.as_str())).collect();
        others.sort();
        others.dedup();
        first.iter().map(|k| k.to_string()).chain(others).collect::<Vec<_>>()
    };
    for field in sorted_keys(Some(rendered), Some(written), &["spec", "data", "metadata"]) {
        if field != "metadata" && rendered.get(&field) != written.get(&field) {
            return Some(field);
        }
    }
    let (r, w) = (rendered.get("metadata"), written.get("metadata"));
    let annotations =
        |v: Option<&serde_json::Value>| -> std::collections::BTreeMap<String, serde_json::Value> {
            let map = v.and_then(|m| m.get("annotations")).and_then(serde_json::Value::as_object);
            map.into_iter()
                .flatten()
                .filter(|(k, _)| !super::where_it_sits(k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        };
    for field in sorted_keys(r, w, &["annotations"]) {
        let differs = match field.as_str() {
            "annotations" => annotations(r) != annotations(w),
            _ => r.and_then(|m| m.get(&field)) != w.and_then(|m| m.get(&field)),
        };
        if differs {
            return Some(format!("metadata.{field}"));
        }
    }
    None
}

/// The guard as committed: whether the input holds any of its objects, and the records of
/// those that are not its render.
pub struct Edits {
    pub committed: bool,
    pub records: Vec<Unjudged>,
}

/// The records of the admission objects among `items` that this run does not render (`fresh`:
/// the keys it does), of the guard name `guard` and parameter namespace `param_namespace`
/// (this run's, or the defaults where it renders none):
/// - a ConfigMap of a guard's parameters (`<guard>-<namespace>`): another package's guard of
///   the same name, or this one's for a namespace it no longer guards whose objects an applier
///   kept, reads its parameters by that name, so such an object applied over them replaces
///   what it pins (`kubectl apply`'s three-way merge drops the keys the file lacks: kubectl
///   `pkg/cmd/apply/patcher.go`, `patchSimple`), and that guard then admits any workload for
///   the identities its parameters no longer name;
/// - any ValidatingAdmissionPolicy or binding: besides one named as the guard's, which
///   replaces it, it refuses the requests it matches, the deletes and updates a pull request
///   relies on among them (a binding kept while its guard is pruned, the guard's parameters
///   kept after a workload is removed: apiserver `registry/generic/registry/store.go`,
///   `Delete`, runs validating admission first).
///
/// `written` gives an item's text, which a record of one the reconcile passes on follows.
pub fn admission_objects<'t>(
    items: &[Input],
    guard: &str,
    param_namespace: &str,
    fresh: &[ObjectKey],
    written: &dyn Fn(usize) -> Option<&'t str>,
) -> Vec<Unjudged> {
    use crate::api::admission::{BINDING_KIND, CONFIG_MAP_KIND, POLICY_KIND};
    let prefix = format!("{guard}-");
    let mut out = Vec::new();
    for (position, item) in items.iter().enumerate() {
        let Some((key, owner)) = item.admission() else { continue };
        if owner == Some(guard) || fresh.contains(&key) {
            continue;
        }
        let (kind, namespace, name) = (key.0.as_str(), key.1.as_str(), key.2.as_str());
        let policy = item.value().and_then(|v| crate::api::fields::str_at(v, "spec.policyName"));
        let named = match kind {
            CONFIG_MAP_KIND => namespace == param_namespace && name.starts_with(&prefix),
            POLICY_KIND => name == guard,
            BINDING_KIND => name == guard || name.starts_with(&prefix) || policy == Some(guard),
            _ => false,
        };
        if !named && kind == CONFIG_MAP_KIND {
            continue;
        }
        let stand_in;
        let value = match item.value() {
            Some(value) => value,
            None => {
                stand_in = crate::api::value::Value::from(serde_json::json!({
                    "kind": kind, "metadata": {"namespace": namespace, "name": name}}));
                &stand_in
            }
        };
        let text: Vec<String> = written(position).map(str::to_string).into_iter().collect();
        out.push(record(
            position,
            value,
            String::new(),
            if named {
                format!(
                    "a {kind} named as the admission guard {guard}'s own that this run does not render: another \
                     package's guard of that name, or this one's for a namespace it no longer guards, reads it by \
                     that name, and applied over its own it replaces what that guard pins (kubectl's three-way \
                     merge drops the keys the file lacks), so the guard may admit any workload for the identities \
                     it names; give it another name"
                )
            } else {
                format!(
                    "a {kind} this run does not render: it refuses the requests it matches, the deletes and \
                     updates a pull request relies on among them (a binding's or a ClusterSPIFFEID's delete, so \
                     that an identity stays while its admission guard is pruned; an update of the guard's \
                     parameters, so that a removed workload's name stays admitted), which the build does not \
                     judge; review it apart"
                )
            },
            &[],
            &text,
        ));
    }
    out
}

/// The records of the ClusterSPIFFEIDs among `items` this function does not render, where the
/// run writes an admission guard. The guard pins only the identities the run renders, each by
/// its entry; a pod made at run time with the labels such an object selects (a bare pod, one a
/// container creates through the API) finds no entry and is admitted, and the manager renders
/// it an entry of whatever SPIFFE ID the object gives, a binding's too (spire-controller-manager
/// `pkg/spireentry/reconciler.go`, `addClusterSPIFFEIDEntriesState`). The build judges such an
/// object by the pod templates it reaches, so one new or changed is `may gain`; so is one
/// whose reach a Namespace's labels change (its `namespaceSelector` reads the live
/// Namespaces: `listNamespaces`), so its record follows every Namespace's name and labels.
pub fn foreign_identities<'t>(items: &[Input], written: &dyn Fn(usize) -> Option<&'t str>) -> Vec<Unjudged> {
    use crate::api::cluster_spiffe_id::{is_cluster_spiffe_id, is_managed};
    use crate::api::fields::{child, str_at};
    let namespaces: Vec<String> = items
        .iter()
        .filter_map(Input::value)
        .filter(|v| str_at(*v, "apiVersion") == Some("v1") && str_at(*v, "kind") == Some("Namespace"))
        .map(|v| {
            let labels =
                child(v, &["metadata", "labels"]).map(|l| serde_json::to_string(l).unwrap_or_default());
            format!(
                "Namespace {} {}",
                str_at(v, "metadata.name").unwrap_or_default(),
                labels.unwrap_or_default()
            )
        })
        .collect();
    let mut out = Vec::new();
    for (position, item) in items.iter().enumerate() {
        let Some(value) = item.value().filter(|v| is_cluster_spiffe_id(*v) && !is_managed(*v)) else {
            continue;
        };
        let text: Vec<String> = written(position).map(str::to_string).into_iter().collect();
        out.push(record(
            position,
            value,
            String::new(),
            "a ClusterSPIFFEID this function does not render, beside the admission guard: the guard pins \
             only the identities the run renders, so a pod made at run time with the labels it selects (a \
             bare pod, one a container creates through the API) is admitted and holds its SVIDs, which the \
             build judges only for the pod templates it reaches; declare the identity with a binding, or \
             review it apart"
                .to_string(),
            &[],
            &[text, namespaces.clone()].concat(),
        ));
    }
    out
}

/// The records of the workloads among `items` whose pods run under a user name the admission
/// guard trusts for a controller (`controllers`: each controller's key and user name, as the
/// guard renders them): Kubernetes has no permission to use a service account, so a pod
/// running as `replicaset-controller` in `kube-system` holds that controller's token
/// (apiserver `pkg/authentication/serviceaccount/util.go`, `MakeUsername`), and what runs in it
/// may make the pods the guard admits from that controller. A workload without a namespace may
/// land in the controller's.
pub fn impersonators<'t>(
    items: &[Input],
    controllers: &[(&'static str, String)],
    written: &dyn Fn(usize) -> Option<&'t str>,
) -> Vec<Unjudged> {
    let trusted_account = |namespace: Option<&str>, account: &str| {
        controllers.iter().find(|(_, user)| {
            let Some((ns, name)) = account_of(user) else { return false };
            name == account && namespace.is_none_or(|n| n == ns)
        })
    };
    let mut out = Vec::new();
    // A token Secret of a trusted account: the token controller fills it with that account's
    // token (kubernetes `pkg/controller/serviceaccount/tokens_controller.go`), which whoever
    // reads or mounts it holds.
    for (position, value) in crate::reconcile::items::input::values(items) {
        let text = |path: &str| crate::api::fields::str_at(value, path);
        let token = (text("apiVersion"), text("kind"), text("type"))
            == (Some("v1"), Some("Secret"), Some("kubernetes.io/service-account-token"));
        let account = crate::api::fields::child(
            value,
            &["metadata", "annotations", "kubernetes.io/service-account.name"],
        )
        .and_then(Value::as_str);
        let namespace = text("metadata.namespace").filter(|ns| !ns.is_empty());
        let Some((key, user)) = account.filter(|_| token).and_then(|a| trusted_account(namespace, a)) else {
            continue;
        };
        out.push(record(
            position,
            value,
            "metadata.annotations".to_string(),
            format!(
                "a token Secret of {user}, the user name the admission guard trusts for the {key} controller: \
                 the token controller fills it with that account's token, which whoever reads or mounts it holds, \
                 and may make the pods the guard admits from it; remove it"
            ),
            &[],
            &[],
        ));
    }
    // An object of a kind no controller declaration names that names a trusted account where
    // a service account is named (a Tekton TaskRun's `serviceAccountName`, a Spark
    // application's `driver.serviceAccount`): its controller may run its pods as that account
    // (tektoncd/pipeline `pkg/pod/pod.go`, `Build`).
    for (position, value) in crate::reconcile::items::input::values(items) {
        let text = |path: &str| crate::api::fields::str_at(value, path);
        let (Some(api_version), Some(kind)) = (text("apiVersion"), text("kind")) else { continue };
        if crate::reconcile::items::kinds::is_judged(api_version, kind) {
            continue;
        }
        let namespace = text("metadata.namespace").filter(|ns| !ns.is_empty());
        let Some((field, key, user)) = accounts_named(value, "").into_iter().find_map(|(field, account)| {
            trusted_account(namespace, account).map(|(key, user)| (field, key, user))
        }) else {
            continue;
        };
        out.push(record(
            position,
            value,
            field,
            format!(
                "names {user}, the user name the admission guard trusts for the {key} controller, as the \
                 service account its pods run as: whatever runs in them holds that controller's token and may \
                 make the pods the guard admits from it; name another service account"
            ),
            &[],
            &[],
        ));
    }
    for (position, workload) in crate::reconcile::items::input::workloads(items).enumerate() {
        let Some(workload) = workload else { continue };
        for template in workload.templates() {
            let account = template.service_account();
            let Some((key, user)) = trusted_account(workload.namespace(), account) else { continue };
            let about =
                crate::reconcile::findings::Ref::of_workload(position, &workload, Some(template.path()));
            let mut hash = Sha256::new();
            hash.update(format!("{workload:?}\0{user}").as_bytes());
            out.push(Unjudged {
                about,
                field: match template.path() {
                    "" => "spec.serviceAccountName".to_string(),
                    path => format!("{path}.spec.serviceAccountName"),
                },
                message: format!(
                    "its pods run as {user}, the user name the admission guard trusts for the {key} controller: \
                     whatever runs in them holds that controller's token and may make the pods the guard admits \
                     from it; run them under another service account"
                ),
                digest: crate::reconcile::rules::identity::hex(&hash.finalize()),
                copy: false,
            });
            break;
        }
    }
    // Any other item whose text names a trusted account as a word: what a controller reads
    // may run its pods as that account where no field says so plainly (an Argo Workflow's
    // `podSpecPatch` or a parameter it substitutes: argo-workflows `ApplyPodSpecPatch`,
    // `substituteGlobalVariables`), or by a default of its configuration (Tekton's
    // `config-defaults` `default-service-account`: tektoncd/pipeline `taskrun_defaults.go`;
    // Argo's `workflowDefaults`: argo-workflows `setWorkflowDefaults`). A ConfigMap or Secret
    // anywhere (a controller's configuration sits in its own namespace), an object of a kind
    // whose controller may make pods in any namespace anywhere (below), any other item in the
    // account's namespace or in none; the guard's own objects aside (they name them), and the
    // admission configuration, every object of which is a record already.
    let recorded: Vec<usize> = out.iter().map(|u| u.about.item).collect();
    for (position, item) in items.iter().enumerate() {
        let admission = item.admission();
        let guards = admission
            .as_ref()
            .is_some_and(|(key, owner)| owner.is_some() || !matches!(key.0.as_str(), "ConfigMap" | "Secret"));
        if recorded.contains(&position) || guards {
            continue;
        }
        let text = match (written(position), item.value()) {
            (Some(text), _) => text.to_string(),
            (None, Some(value)) => format!("{value:?}"),
            (None, None) => continue,
        };
        let named: Vec<&str> = super::tokens(&text).collect();
        let (configuration, namespace) = match item.value() {
            Some(value) => {
                let text = |path: &str| crate::api::fields::str_at(value, path);
                let configuration =
                    text("apiVersion") == Some("v1") && matches!(text("kind"), Some("ConfigMap" | "Secret"));
                (configuration, text("metadata.namespace").filter(|ns| !ns.is_empty()).map(str::to_string))
            }
            None => (false, item.workload().and_then(|w| w.namespace().map(str::to_string))),
        };
        // Of a kind whose controller may run pods under an account the build does not read as
        // it does, and in any namespace its fields name: one no declaration names (an Argo
        // Events Sensor's trigger creates its object where that object says: argo-events
        // `standard-k8s.go`, `Execute`), or a workload of another group than Kubernetes' own (a
        // name joined from a parameter, or escaped in a patch the controller decodes).
        let head = match (item.value(), item.workload()) {
            (Some(value), _) => Some((
                crate::api::fields::str_at(value, "apiVersion").unwrap_or_default().to_string(),
                crate::api::fields::str_at(value, "kind").unwrap_or_default().to_string(),
            )),
            (None, Some(w)) => Some((w.api_version().to_string(), w.kind().to_string())),
            (None, None) => None,
        };
        let unknown = head
            .as_ref()
            .is_some_and(|(api_version, kind)| !crate::reconcile::items::kinds::is_judged(api_version, kind));
        let makes_pods = unknown
            || head.as_ref().is_some_and(|(api_version, _)| {
                let own = matches!(crate::api::group_of(api_version), "" | "apps" | "batch");
                item.workload().is_some() && !own
            });
        let found = controllers.iter().find(|(_, user)| {
            account_of(user).is_some_and(|(ns, name)| {
                named.contains(&name)
                    && (configuration || makes_pods || namespace.as_deref().is_none_or(|n| n == ns))
            })
        });
        // Or it sits in a trusted account's namespace and is of such a kind; or, of a kind no
        // declaration names, anywhere: its controller may make pods in any namespace, under an
        // account joined from its parameters (an Argo Events Sensor's trigger: argo-events
        // `params.go`, `ApplyParams`, which appends or prepends a parameter to a field).
        let opaque = || {
            controllers.iter().find(|(_, user)| {
                makes_pods
                    && !configuration
                    && account_of(user).is_some_and(|(ns, _)| namespace.as_deref() == Some(ns))
            })
        };
        let (found, why) = match (found, opaque()) {
            (Some(found), _) => (found, Why::Names),
            (None, Some(found)) => (found, Why::Sits),
            (None, None) => match controllers.first().filter(|_| unknown && !configuration) {
                Some(found) => (found, Why::Anywhere),
                None => continue,
            },
        };
        let (key, user) = found;
        let message = if why == Why::Anywhere {
            format!(
                "is of a kind no controller declaration names, whose controller may make pods in any namespace \
                 and under any account from what the build does not read (an Argo Events Sensor's trigger, a \
                 name joined from its parameters), {user} among them, the user name the admission guard trusts \
                 for the {key} controller, and whatever runs in them holds that controller's token; review it \
                 apart, or keep objects of kinds the build does not know out of the folders the guard reviews"
            )
        } else if why == Why::Sits {
            format!(
                "sits in the namespace of {user}, the user name the admission guard trusts for the {key} \
                 controller, and its controller may run pods as that account from what the build does not read \
                 as it does (a name joined from parameters, escaped in a patch it decodes), and whatever runs in \
                 them holds that controller's token; keep it out of that namespace"
            )
        } else {
            format!(
                "names the service account of {user}, the user name the admission guard trusts for the {key} \
                 controller: a controller may run pods as it from what it reads here (a pod spec patch, a \
                 parameter it substitutes, a default account of its configuration), and whatever runs in them \
                 holds that controller's token; name another account"
            )
        };
        match (item.value(), item.workload()) {
            (Some(value), _) => out.push(record(position, value, String::new(), message, &[], &[])),
            (None, Some(w)) => {
                let digest = Sha256::digest(format!("{text}\0{user}").as_bytes());
                out.push(Unjudged {
                    about: crate::reconcile::findings::Ref::of_workload(position, &w, None),
                    field: String::new(),
                    message,
                    digest: crate::reconcile::rules::identity::hex(&digest),
                    copy: false,
                });
            }
            (None, None) => {}
        }
    }
    out
}

/// The namespace and name of the service account a user name is, when it is one's
/// (`system:serviceaccount:<namespace>:<name>`: apiserver `MakeUsername`).
fn account_of(user: &str) -> Option<(&str, &str)> {
    user.strip_prefix("system:serviceaccount:").and_then(|rest| rest.split_once(':'))
}

/// Each `serviceAccountName` or `serviceAccount` text in `value`, at any depth, with its path
/// under `at`.
fn accounts_named<'v>(value: &'v Value, at: &str) -> Vec<(String, &'v str)> {
    let join = |key: &str| if at.is_empty() { key.to_string() } else { format!("{at}.{key}") };
    match value {
        Value::Object(map) => map
            .iter()
            .flat_map(|(key, item)| match item.as_str() {
                Some(account) if matches!(key, "serviceAccountName" | "serviceAccount") => {
                    vec![(join(key), account)]
                }
                _ => accounts_named(item, &join(key)),
            })
            .collect(),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .flat_map(|(n, item)| accounts_named(item, &format!("{at}[{n}]")))
            .collect(),
        _ => Vec::new(),
    }
}

/// Why an item may let pods run as a trusted controller's account ([`impersonators`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Why {
    /// Its text names the account as a word.
    Names,
    /// It sits in the account's namespace, of a kind whose controller may run pods as it.
    Sits,
    /// Of a kind no declaration names, anywhere.
    Anywhere,
}

#[cfg(test)]
mod tests {
    use super::{Input, admission_objects as lookalikes, edited, impersonators};
    use serde_json::json;

    /// What appliers and controllers read is an edit; where a reader says an item sits is not.
    #[test]
    fn a_guard_object_is_edited_by_any_field_an_applier_reads() {
        let rendered = json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "g", "annotations": {"kleym.sonda.red/admission-guard": "g"}},
            "data": {"k": "v"}
        });
        let with = |edit: &dyn Fn(&mut serde_json::Value)| {
            let mut written = rendered.clone();
            edit(&mut written);
            edited(&rendered, &written)
        };
        assert_eq!(with(&|_| {}), None);
        assert_eq!(with(&|w| w["data"]["k"] = json!("w")).as_deref(), Some("data"));
        assert_eq!(with(&|w| w["items"] = json!([])).as_deref(), Some("items"));
        assert_eq!(with(&|w| w["items"] = json!(null)).as_deref(), Some("items"), "null is a field");
        let annotate = |key: &'static str| {
            move |w: &mut serde_json::Value| w["metadata"]["annotations"][key] = json!("x")
        };
        assert_eq!(
            with(&annotate("config.kubernetes.io/local-config")).as_deref(),
            Some("metadata.annotations")
        );
        assert_eq!(with(&annotate("argocd.argoproj.io/hook")).as_deref(), Some("metadata.annotations"));
        for where_it_sits in [
            "config.kubernetes.io/index",
            "config.kubernetes.io/path",
            "internal.config.kubernetes.io/path",
            "internal.config.kubernetes.io/seqindent",
        ] {
            assert_eq!(with(&annotate(where_it_sits)), None, "{where_it_sits}");
        }
        let labels = json!({"a": "b"});
        assert_eq!(
            with(&|w| w["metadata"]["labels"] = labels.clone()).as_deref(),
            Some("metadata.labels"),
            "prune -l"
        );
        let owner = json!([{"apiVersion": "v1", "kind": "Namespace", "name": "serving", "uid": "0"}]);
        let owned = with(&|w| w["metadata"]["ownerReferences"] = owner.clone());
        assert_eq!(owned.as_deref(), Some("metadata.ownerReferences"), "the garbage collector");
        // A field the render has and the file lacks is an edit too.
        assert_eq!(
            with(&|w| w.as_object_mut().unwrap().remove("data").map(drop).unwrap()).as_deref(),
            Some("data")
        );
    }

    #[test]
    fn an_object_named_as_a_guards_own_that_the_run_does_not_render_is_recorded() {
        let config_map = |namespace: &str, name: &str| {
            Input::of(json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": name, "namespace": namespace}, "data": {"k": "v"}}))
        };
        let binding = |name: &str, policy: &str| {
            Input::of(json!({"apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": name},
                "spec": {"policyName": policy}}))
        };
        let found = |items: &[Input], fresh: &[(String, String, String)]| {
            lookalikes(items, "g", "params", fresh, &|_| None).len()
        };
        assert_eq!(found(&[config_map("params", "g-team")], &[]), 1);
        assert_eq!(found(&[config_map("elsewhere", "g-team")], &[]), 0, "outside the parameters' namespace");
        assert_eq!(found(&[config_map("params", "gx-team")], &[]), 0, "another guard's name");
        let own = ("ConfigMap".to_string(), "params".to_string(), "g-team".to_string());
        assert_eq!(found(&[config_map("params", "g-team")], &[own]), 0, "one the run renders");
        assert_eq!(found(&[binding("audit", "g")], &[]), 1, "a binding of the guard's policy");
        assert_eq!(found(&[binding("g-team", "other")], &[]), 1, "a binding named after it");
        // Any other policy or binding refuses what it matches, the deletes a pull request
        // relies on among them.
        assert_eq!(found(&[binding("audit", "other")], &[]), 1);
    }

    #[test]
    fn a_token_secret_of_a_trusted_controllers_account_is_recorded() {
        let in_namespace = |namespace: &str, account: &str, kind: &str| {
            Input::of(json!({"apiVersion": "v1", "kind": "Secret", "type": kind,
                "metadata": {"name": "t", "namespace": namespace,
                    "annotations": {"kubernetes.io/service-account.name": account}}}))
        };
        let secret = |account: &str, kind: &str| in_namespace("kube-system", account, kind);
        let trusted = [("replicaset", "system:serviceaccount:kube-system:replicaset-controller".to_string())];
        let token = "kubernetes.io/service-account-token";
        assert_eq!(impersonators(&[secret("replicaset-controller", token)], &trusted, &|_| None).len(), 1);
        // The token controller fills a Secret with an account of its own namespace.
        let elsewhere = in_namespace("shop", "replicaset-controller", token);
        // Only as a text naming the account, as any Secret's is.
        let named = impersonators(&[elsewhere], &trusted, &|_| None);
        assert_eq!(named.iter().map(|r| r.field.as_str()).collect::<Vec<_>>(), [""]);
        assert_eq!(
            impersonators(&[in_namespace("", "replicaset-controller", token)], &trusted, &|_| None).len(),
            1
        );
        let opaque = impersonators(&[secret("replicaset-controller", "Opaque")], &trusted, &|_| None);
        assert_eq!(opaque.iter().map(|r| r.field.as_str()).collect::<Vec<_>>(), [""], "as a text only");
        assert!(impersonators(&[secret("default", token)], &trusted, &|_| None).is_empty());
    }

    #[test]
    fn a_workload_running_as_a_trusted_controllers_account_is_recorded() {
        let deployment = |namespace: Option<&str>, account: &str| {
            let mut d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "cart"},
                "spec": {"template": {"spec": {"serviceAccountName": account, "containers": [{"name": "c"}]}}}});
            if let Some(ns) = namespace {
                d["metadata"]["namespace"] = json!(ns);
            }
            Input::of(d)
        };
        let trusted = [("replicaset", "system:serviceaccount:kube-system:replicaset-controller".to_string())];
        let found = |item: Input| impersonators(&[item], &trusted, &|_| None);
        let records = found(deployment(Some("kube-system"), "replicaset-controller"));
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].field, "spec.template.spec.serviceAccountName");
        assert!(records[0].message.contains("the replicaset controller"));
        assert_eq!(found(deployment(None, "replicaset-controller")).len(), 1, "it may land in kube-system");
        assert!(found(deployment(Some("shop"), "replicaset-controller")).is_empty());
        assert!(found(deployment(Some("kube-system"), "default")).is_empty());
        // A kind no controller declaration names, naming the account where an account is named.
        let task = |kind: &str, namespace: &str, spec: serde_json::Value| {
            Input::of(json!({"apiVersion": "tekton.dev/v1", "kind": kind,
                             "metadata": {"name": "t", "namespace": namespace}, "spec": spec}))
        };
        let run =
            found(task("TaskRun", "kube-system", json!({"serviceAccountName": "replicaset-controller"})));
        assert_eq!(run.len(), 1);
        assert_eq!(run[0].field, "spec.serviceAccountName");
        let nested = json!({"taskRunTemplate": {"serviceAccount": "replicaset-controller"}});
        assert_eq!(
            found(task("PipelineRun", "kube-system", nested))[0].field,
            "spec.taskRunTemplate.serviceAccount"
        );
        let listed = json!({"steps": [{"serviceAccountName": "replicaset-controller"}]});
        assert_eq!(
            found(task("PipelineRun", "kube-system", listed))[0].field,
            "spec.steps[0].serviceAccountName"
        );
        // Elsewhere, as a text: a controller the build does not know may make its pods in any
        // namespace (an Argo Events Sensor's trigger makes its object where that says).
        let elsewhere =
            found(task("TaskRun", "shop", json!({"serviceAccountName": "replicaset-controller"})));
        assert!(elsewhere[0].message.starts_with("names the service account"), "{elsewhere:?}");
        // Naming none, anywhere: its controller may join a name from its parameters.
        let joined = found(task("TaskRun", "shop", json!({"serviceAccountName": "default"})));
        assert!(joined[0].message.starts_with("is of a kind no controller declaration names"), "{joined:?}");
        // A kind the build judges, naming none: nothing.
        assert!(found(deployment(Some("shop"), "default")).is_empty());
        let other_field = found(task("TaskRun", "shop", json!({"account": "replicaset-controller"})));
        assert_eq!(other_field.iter().map(|r| r.field.as_str()).collect::<Vec<_>>(), [""], "as a text only");
        // Any text naming the account as a word: a pod spec patch, a parameter, a default.
        let patch = json!({"podSpecPatch": "{\"serviceAccountName\": \"replicaset-controller\"}"});
        assert_eq!(found(task("Workflow", "kube-system", patch.clone())).len(), 1);
        assert_eq!(found(task("Workflow", "shop", patch)).len(), 1, "it may make pods elsewhere");
        let part = json!({"serviceAccountName": "my-replicaset-controller-2"});
        let part = found(task("Workflow", "kube-system", part));
        assert!(part[0].message.starts_with("sits in"), "a word of its own only: {}", part[0].message);
        // A controller's configuration in any namespace, not the guard's own objects.
        let config = |annotations: serde_json::Value| {
            Input::of(json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "workflow-controller-configmap", "namespace": "argo", "annotations": annotations},
                "data": {"workflowDefaults": "spec:\n  serviceAccountName: replicaset-controller\n"}}))
        };
        assert_eq!(found(config(json!({}))).len(), 1);
        use crate::api::admission::ANNOTATION_GUARD;
        use crate::api::cluster_spiffe_id::{ANNOTATION_RENDERED_BY, RENDERED_BY};
        assert!(
            found(config(json!({ANNOTATION_GUARD: "g", ANNOTATION_RENDERED_BY: RENDERED_BY}))).is_empty()
        );
        // The text as written, where the caller reads files.
        let written = |_: usize| Some("serviceAccountName: replicaset-controller");
        let plain = task("Workflow", "kube-system", json!({}));
        let named = impersonators(std::slice::from_ref(&plain), &trusted, &written);
        assert!(named[0].message.starts_with("names the service account"), "{}", named[0].message);
        // A kind no declaration names in the trusted account's namespace, whatever it names.
        let opaque = found(plain);
        assert!(opaque[0].message.starts_with("sits in the namespace of"), "{}", opaque[0].message);
        // A kind the build judges in another namespace, naming none: nothing.
        let service = Input::of(json!({"apiVersion": "v1", "kind": "Service",
                                       "metadata": {"name": "s", "namespace": "shop"}, "spec": {}}));
        assert!(found(service).is_empty());
        // One that names the account as a word: in the account's namespace, as a text; in
        // another, nothing (it is no configuration, and its controller makes no pods).
        let naming = |namespace: &str| {
            Input::of(json!({"apiVersion": "v1", "kind": "Service",
                "metadata": {"name": "s", "namespace": namespace, "annotations": {"owner": "replicaset-controller"}},
                "spec": {}}))
        };
        let named = found(naming("kube-system"));
        assert_eq!(named.iter().map(|r| r.field.as_str()).collect::<Vec<_>>(), [""], "{named:?}");
        assert!(found(naming("shop")).is_empty());
        // Of a kind no declaration names, a field that names no account is read as a text only.
        let noted = found(task("TaskRun", "kube-system", json!({"note": "replicaset-controller"})));
        assert_eq!(noted.iter().map(|r| r.field.as_str()).collect::<Vec<_>>(), [""], "{noted:?}");
    }
}
