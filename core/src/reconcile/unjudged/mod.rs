//! What the build cannot judge exactly and that could reach an identity (docs/review.md,
//! "The gate's rule"): an item of a kind no controller declaration names (in its group) that
//! names a label an identity selects, plain or escaped, or whose API domain holds one, or
//! stands where an identity selects pods by no label, in any namespace it names; an item of a
//! kind that changes what gets applied (admission, policy engines, GitOps tools, kustomize,
//! SPIRE Controller Manager's own configuration); a ConfigMap's or Secret's text that embeds
//! selected labels or a required service account; a scaler of a workload whose pods hang on
//! its count, of any kind; a field a controller declaration does not judge, and an item whose
//! controller makes its pods under what only the cluster holds (`Controller::remade`), each
//! change of it; a workload that runs a pod-making controller itself (`Controller::images`),
//! each change of it; a KServe preset outside the namespace taken for KServe's; an `Endpoints`
//! that names a pod where an identity gives DNS names ([`endpoints`]); a List holding an item
//! a rule judges only as an object of its own ([`lists`]); what hangs on the applier or the
//! cluster's APIs ([`applied`]). Each is a record with a digest of what it depends on: `diff`
//! counts a record HEAD has and BASE has not as a possible grant.

mod applied;
mod applying;
mod duplicates;
mod embedded;
mod endpoints;
mod guard;
mod kinds;
mod lists;
mod narrowed;
mod scale;

use crate::api::fields;
use crate::api::value::Value;
use crate::reconcile::cluster::selector::Selector;
use crate::reconcile::findings::Ref;
use crate::reconcile::items::input::{self, Input};
use crate::reconcile::rules::identity::hex;
use crate::reconcile::spire::{self, Source};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};

use crate::reconcile::items::kinds::is_judged;
pub use applied::{Unserved, committed, unapplied_services, unserved};
pub use applying::{
    Differ, Lingering, Lingers, Mix, Take, declares_identities, differ, lingering, mix, parts,
};
pub use duplicates::find as duplicates;
pub use guard::admission_objects as guard_admission_objects;
pub use guard::edits as guard_edits;
pub use guard::foreign_identities as guard_foreign_identities;
pub use guard::impersonators as guard_impersonators;
pub use kinds::{article, changes_what_is_applied};
pub use narrowed::narrowed;

/// One thing the build cannot judge exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unjudged {
    /// The item it is about.
    pub about: Ref,
    /// Where in the item: the path of the first field that names a label an identity
    /// selects; empty for the whole item.
    pub field: String,
    /// Why the build cannot judge it, a sentence of its own.
    pub message: String,
    /// SHA-256, hex, of what it depends on: the item's content, the field, and the
    /// identities it may reach. Two records with one digest are the same unknown.
    pub digest: String,
    /// Whether it is a copy of an object declared more than once ([`duplicates`]): one BASE
    /// held that HEAD drops may leave another copy the one that runs.
    pub copy: bool,
}

/// What one identity of the model selects by, as an unknown item may meet it.
struct Reach<'s> {
    source: &'s Source,
    /// Every label key it reads of a pod: its `podSelector`'s, its `k8s:pod-label`
    /// selectors'.
    keys: Vec<&'s str>,
    /// The service accounts it requires of a pod: its `k8s:sa` selectors' (none templated).
    accounts: Vec<&'s str>,
    /// Whether a pod that carries none of `keys` may still be selected and attest: it
    /// selects pods by no label (a static entry, an empty `podSelector`, only `NotIn` or
    /// `DoesNotExist` requirements) and requires none by its selectors.
    any_pod: bool,
    /// The label keys it requires when each is one any controller may write ([`shared_key`]),
    /// empty when one is not: a controller the build does not know may put them on its pods
    /// without its item naming them (an operator's `app.kubernetes.io/instance: <name>`).
    shared: Vec<&'s str>,
    /// The namespaces it may select pods in; `None`: any.
    namespaces: Option<Vec<&'s str>>,
}

impl<'s> Reach<'s> {
    fn of(source: &'s Source) -> Reach<'s> {
        let mut keys: Vec<&str> = Vec::new();
        let mut needed: Vec<&str> = Vec::new();
        if let Some(pods) = &source.pods {
            for (k, _) in &pods.match_labels {
                keys.push(k);
                needed.push(k);
            }
            for e in &pods.expressions {
                keys.push(&e.key);
                if matches!(e.operator.as_str(), "In" | "Exists") {
                    needed.push(&e.key);
                }
            }
        }
        let mut templated = false;
        for selector in &source.selector_templates {
            if let Some(label) = selector.strip_prefix("k8s:pod-label:") {
                let key = label.split_once(':').map_or(label, |(k, _)| k);
                if key.contains("{{") {
                    templated = true;
                } else {
                    keys.push(key);
                    needed.push(key);
                }
            }
        }
        let required = !needed.is_empty();
        let shared = if templated || !needed.iter().all(|k| shared_key(k)) { Vec::new() } else { needed };
        let accounts: Vec<&str> = source
            .selector_templates
            .iter()
            .filter_map(|s| s.strip_prefix("k8s:sa:"))
            .filter(|a| !a.contains("{{"))
            .collect();
        let mut namespaces: Option<Vec<&str>> = source.namespaces.as_ref().and_then(pinned);
        let by_selector: Vec<&str> = source
            .selector_templates
            .iter()
            .filter_map(|s| s.strip_prefix("k8s:ns:"))
            .filter(|n| !n.contains("{{"))
            .collect();
        if !by_selector.is_empty() {
            namespaces = Some(match namespaces {
                Some(names) => names.into_iter().filter(|n| by_selector.contains(n)).collect(),
                None => by_selector,
            });
        }
        keys.sort_unstable();
        keys.dedup();
        let mut shared = shared;
        shared.sort_unstable();
        shared.dedup();
        Reach { source, keys, accounts, any_pod: !required, shared, namespaces }
    }
}

/// Which identities may select pods in which namespace, built once for every item: those
/// that may select in any namespace (`Reach::namespaces` is `None`), and those pinned to
/// each, so no item walks every identity.
struct Scopes<'s> {
    count: usize,
    anywhere: Vec<usize>,
    pinned: HashMap<&'s str, Vec<usize>>,
}

impl<'s> Scopes<'s> {
    fn of(reaches: &[Reach<'s>]) -> Scopes<'s> {
        let mut scopes = Scopes { count: reaches.len(), anywhere: Vec::new(), pinned: HashMap::new() };
        for (r, reach) in reaches.iter().enumerate() {
            match &reach.namespaces {
                None => scopes.anywhere.push(r),
                Some(names) => {
                    for name in names {
                        let list = scopes.pinned.entry(name).or_default();
                        if list.last() != Some(&r) {
                            list.push(r);
                        }
                    }
                }
            }
        }
        scopes
    }

    /// The identities that may select the pods of an item in `namespace` (`None`: one that
    /// may land in any namespace, so every identity), in the model's order.
    fn within(&self, namespace: Option<&str>) -> Vec<usize> {
        let Some(namespace) = namespace else { return (0..self.count).collect() };
        let pinned = self.pinned.get(namespace).map_or(&[][..], Vec::as_slice);
        let mut within: Vec<usize> = self.anywhere.iter().chain(pinned).copied().collect();
        within.sort_unstable();
        within
    }
}

/// The names a selector pins its namespaces to (`kubernetes.io/metadata.name`), if it does.
fn pinned(selector: &Selector) -> Option<Vec<&str>> {
    let name = spire::NAMESPACE_NAME_LABEL;
    if let Some((_, v)) = selector.match_labels.iter().find(|(k, _)| k == name) {
        return Some(vec![v.as_str()]);
    }
    let e = selector.expressions.iter().find(|e| e.key == name && e.operator == "In")?;
    Some(e.values.iter().map(String::as_str).collect())
}

/// A digest of what Kubernetes writes into pods beside their template, which an entry that
/// reads the pod (`.PodSpec.Volumes`, `.PodSpec.NodeSelector`, `k8s:node-name`) may read:
/// ServiceAccounts (the ServiceAccount admission plugin copies `imagePullSecrets` and mounts a
/// token), Namespaces whole (PodNodeSelector and PodTolerationRestriction read their
/// annotations), Nodes and dynamic resources, and the classes and limits admission writes
/// (PriorityClass, RuntimeClass, LimitRange). Where the scheduler places pods by their volumes
/// is the cluster's (docs/review.md, "Assumed, not judged").
pub fn pod_context(items: &[Input]) -> String {
    const CORE: [&str; 3] = ["ServiceAccount", "Namespace", "Node"];
    let mut hash = Sha256::new();
    for (_, v) in input::values(items) {
        let (api_version, kind) = (
            fields::str_at(v, "apiVersion").unwrap_or_default(),
            fields::str_at(v, "kind").unwrap_or_default(),
        );
        let group = crate::api::group_of(api_version);
        let writes = (group.is_empty() && CORE.contains(&kind))
            || group == "resource.k8s.io"
            || crate::reconcile::items::kinds::ADMITTED.contains(&(group, kind));
        if writes {
            hash.update(b"\0item\0");
            digest(v, &mut hash, true);
        }
    }
    hex(&hash.finalize())
}

/// The records of `items` under the identities the manager reads (`sources`, those the
/// model neither ignores nor refuses).
pub fn find<'s, 't>(
    items: &[Input],
    sources: impl Iterator<Item = &'s Source>,
    written: &dyn Fn(usize) -> Option<&'t str>,
) -> Vec<Unjudged> {
    let reaches: Vec<Reach<'_>> = sources.map(Reach::of).collect();
    let scopes = Scopes::of(&reaches);
    let sources_within = |namespace: Option<&str>| -> Vec<&Source> {
        scopes.within(namespace).into_iter().map(|r| reaches[r].source).collect()
    };
    // Each label key, with the identities that read it: an item is walked once, whatever
    // their number.
    let mut by_key: HashMap<&str, Vec<usize>> = HashMap::new();
    for (r, reach) in reaches.iter().enumerate() {
        for key in &reach.keys {
            by_key.entry(key).or_default().push(r);
        }
    }
    // Each service account, with the identities that require it.
    let mut by_account: HashMap<&str, Vec<usize>> = HashMap::new();
    for (r, reach) in reaches.iter().enumerate() {
        for account in &reach.accounts {
            by_account.entry(account).or_default().push(r);
        }
    }
    // The Namespaces the input declares, in words: a record reaches an identity through their
    // labels (its `namespaceSelector`), so its digest follows those it may land in (all of
    // them when it may land in any).
    let declared: BTreeMap<&str, String> = input::values(items)
        .filter(|(_, v)| {
            fields::str_at(*v, "apiVersion") == Some("v1") && fields::str_at(*v, "kind") == Some("Namespace")
        })
        .filter_map(|(_, v)| Some((fields::str_at(v, "metadata.name")?, format!("{:?}", v.get("metadata")))))
        .collect();
    let landing = |names: &[&str]| -> Vec<String> {
        let words = |(name, words): (&&str, &String)| format!("{name}\0{words}");
        if names.is_empty() {
            return declared.iter().map(words).collect();
        }
        names.iter().filter_map(|n| declared.get_key_value(n)).map(words).collect()
    };
    let mut out = Vec::new();
    let every: Vec<&Source> = reaches.iter().map(|r| r.source).collect();
    let everything = std::cell::OnceCell::new();
    let pods = std::cell::OnceCell::new();
    for (position, value) in input::values(items) {
        let text = |path: &str| fields::str_at(value, path).unwrap_or_default();
        let (api_version, kind) = (text("apiVersion"), text("kind"));
        if let Some((field, message)) = lists::alone(value) {
            out.push(record(position, value, field, message, &every, &landing(&[])));
            continue;
        }
        let namespace = fields::str_at(value, "metadata.namespace").filter(|ns| !ns.is_empty());
        if let Some(what) = changes_what_is_applied(api_version, kind, value) {
            // What it changes may reach any identity, those the model's manager ignores
            // among them (another manager's class, a namespace the folder's manager does not
            // ignore), and any pod, from anything it reads (a webhook labels the pods it admits
            // from their annotations, a ConfigMap, a ServiceAccount): its digest follows every
            // item of the input, the ConfigMaps and Secrets a SPIRE component reads its
            // configuration from among them, whatever their text says (YAML's binary keys,
            // `--expand-env`).
            let also = everything.get_or_init(|| all_of(items, written));
            out.push(record(position, value, String::new(), what, &[], also));
            continue;
        }
        if endpoints::is_endpoints(api_version, kind) {
            if let Some((field, message, sources)) =
                endpoints::names_pods(value, namespace, || sources_within(namespace))
            {
                out.push(record(position, value, field, message, &sources, &landing(namespace.as_slice())));
            }
            continue;
        }
        if crate::reconcile::items::kinds::is_scaler(value)
            && let Some(target) = scale::target(value, namespace, items)
        {
            let met = sources_within(target.lands.as_deref());
            if !met.is_empty() {
                let mut also = landing(target.lands.as_deref().as_slice());
                also.push(target.words.clone());
                out.push(scale::record(position, value, kind, &target.name, &met, &also));
                continue;
            }
        }
        let texts = embedded::texts(api_version, kind, value);
        if !texts.is_empty() {
            let by = embedded::Named { keys: &by_key, accounts: &by_account };
            // What reads it (a controller's defaults) may make any pod: its digest follows
            // every pod template and Namespace.
            let mut also = landing(&[]);
            also.extend(pods.get_or_init(|| pod_templates(items)).iter().cloned());
            out.extend(embedded_record(position, value, kind, &texts, &by, &reaches, &also));
            continue;
        }
        if let Some((image, controller)) = kinds::runs_controller(api_version, kind, value)
            && !every.is_empty()
        {
            let message = format!(
                "{} {kind} that runs the controller of {} ({image}): its arguments, environment and the \
                 configuration it reads shape the names, labels and containers of every pod it makes \
                 (Argo Workflows' POD_NAMES, KServe's and Argo Rollouts' flags), which the build does not \
                 judge, so those pods may hold what {} gives",
                kinds::article(kind),
                controller.maker,
                identities(&names_of(&every))
            );
            // It follows the item alone: the configuration it reads is judged on its own
            // (`kinds.rs`), the pods it makes by their items.
            out.push(record(position, value, String::new(), message, &[], &[]));
            continue;
        }
        if let Some(message) = foreign_preset(value, namespace, &every) {
            // It follows the preset alone: what it gives the services of its own namespace is
            // judged.
            out.push(record(position, value, String::new(), message, &[], &[]));
            continue;
        }
        let controller = crate::reconcile::cluster::controllers::of(api_version, kind);
        if let Some(why) = controller.and_then(|c| c.remade) {
            let in_scope = sources_within(namespace);
            if !in_scope.is_empty() {
                let message = format!(
                    "{} {kind}, new or changed: {why}; its pods may hold what {} gives",
                    kinds::article(kind),
                    identities(&names_of(&in_scope))
                );
                // It follows the item alone: what the identities give its pods as the item
                // states them is judged.
                out.push(record(position, value, String::new(), message, &[], &[]));
            }
        }
        let shaped = controller.and_then(|c| c.unjudged).and_then(|unjudged| unjudged(value));
        if let Some((field, why)) = shaped {
            let in_scope = sources_within(namespace);
            if !in_scope.is_empty() {
                let message = format!(
                    "{} {kind} whose {field} shapes its pods as the build cannot judge: {why}; its pods may \
                     hold what {} gives",
                    kinds::article(kind),
                    identities(&names_of(&in_scope))
                );
                let mut also = landing(namespace.as_slice());
                also.extend(referenced(items, value, &field, namespace));
                out.push(record(position, value, field, message, &in_scope, &also));
            }
            continue;
        }
        if is_judged(api_version, kind) {
            continue;
        }
        out.extend(unknown_record(position, value, &reaches, &scopes, &by_key, &landing));
    }
    out
}

/// Why a KServe `LLMInferenceServiceConfig` outside the namespace the build takes for KServe's
/// (`value`, in `namespace`) may be a preset of every service where an identity selects
/// (`every`): KServe reads its well-known presets from its own namespace, which its pod's
/// namespace sets (`pkg/controller/v1alpha2/llmisvc/config_merge.go`, `getConfig`;
/// `constants.KServeNamespace`, from `POD_NAMESPACE`), under a name prefix its environment
/// sets too; installed elsewhere, this is one. `None` for another item, or where no identity
/// selects.
fn foreign_preset(value: &Value, namespace: Option<&str>, every: &[&Source]) -> Option<String> {
    use crate::reconcile::cluster::kserve;
    if !kserve::is_config(value) || namespace == Some(kserve::SYSTEM_NAMESPACE) || every.is_empty() {
        return None;
    }
    Some(format!(
        "an {} outside {}: KServe reads its well-known presets from its own namespace, which is where \
         it is installed (config_merge.go, getConfig; POD_NAMESPACE), so this may be a preset of every \
         LLMInferenceService, whose pods may then hold what {} gives",
        kserve::CONFIG_KIND,
        kserve::SYSTEM_NAMESPACE,
        identities(&names_of(every))
    ))
}

/// The record of an item of a kind no controller declaration names (`position`, `value`):
/// its controller may make pods with any labels, as it likes (an operator's own labels) or
/// from manifests it fetches (a Helm chart, a bundle), in its namespace or any it names, so
/// it reaches every identity that may select pods there. The message says the likeliest way:
/// a label it names, a label of its group's domain, an identity that selects by no label or
/// only by labels any controller writes, or else any label at all.
fn unknown_record(
    position: usize,
    value: &Value,
    reaches: &[Reach<'_>],
    scopes: &Scopes<'_>,
    by_key: &HashMap<&str, Vec<usize>>,
    landing: &dyn Fn(&[&str]) -> Vec<String>,
) -> Option<Unjudged> {
    let text = |path: &str| fields::str_at(value, path).unwrap_or_default();
    let (api_version, kind) = (text("apiVersion"), text("kind"));
    let namespaces = namespaces_named(value);
    let mut met: Vec<usize> = if namespaces.is_empty() {
        scopes.within(None)
    } else {
        namespaces.iter().flat_map(|ns| scopes.within(Some(ns))).collect()
    };
    met.sort_unstable();
    met.dedup();
    if met.is_empty() {
        return None;
    }
    let in_scope = |r: &usize| met.binary_search(r).is_ok();
    let named = naming(value, by_key);
    let field = named.iter().find(|(_, key)| by_key[*key].iter().any(in_scope));
    let group = crate::api::group_of(api_version);
    let owned = by_key
        .iter()
        .filter(|(key, rs)| own_domain(key, group) && rs.iter().any(in_scope))
        .map(|(k, _)| k)
        .min();
    let any_pod = met.iter().copied().find(|&r| reaches[r].any_pod);
    let shared = met.iter().copied().find(|&r| !reaches[r].shared.is_empty());
    let sources: Vec<&Source> = met.iter().map(|&r| reaches[r].source).collect();
    let all = identities(&names_of(&sources));
    let one = |r: usize| identities(&[reaches[r].source.name.as_str()]);
    let kind = kinds::unknown_kind(api_version, kind);
    let lead = format!("no controller the build knows makes the pods of {kind}");
    let (path, message) = match (field, owned) {
        (Some((path, key)), _) => (
            path.clone(),
            format!(
                "{lead}, and it names the label {key}, which {} selects: its pods may hold the identities of \
                 {all}; declare its controller, or keep the label out of it",
                identities(&names_of(
                    &by_key[*key]
                        .iter()
                        .filter(|r| in_scope(r))
                        .map(|&r| reaches[r].source)
                        .collect::<Vec<_>>()
                ))
            ),
        ),
        (None, Some(key)) => (
            "apiVersion".to_string(),
            format!(
                "{lead}, and its controller may label them in its own domain, {group}, where {key} is: its pods \
                 may hold the identities of {all}; declare its controller"
            ),
        ),
        (None, None) => {
            let why = match (any_pod, shared) {
                (Some(r), _) => format!("{} selects pods by no label there", one(r)),
                (None, Some(r)) => format!(
                    "{} selects pods only by labels any controller may write ({}), which its controller may put \
                     on its pods without the item naming them",
                    one(r),
                    reaches[r].shared.join(", ")
                ),
                (None, None) => {
                    "its controller may label its pods as it likes, or apply manifests it fetches (a \
                                 Helm chart, a bundle)"
                        .to_string()
                }
            };
            (
                String::new(),
                format!(
                    "{lead}, and {why}: its pods may hold the identities of {all}; declare its controller, or keep \
                     the item out of the namespaces they select in"
                ),
            )
        }
    };
    Some(record(position, value, path, message, &sources, &landing(&namespaces)))
}

/// The record of a ConfigMap or Secret whose text (`texts`, each with its field) names labels
/// and a label key an identity selects, or a service account one requires ([`embedded`]), at
/// the first such text: in any namespace, as whatever reads it may make pods anywhere.
fn embedded_record(
    position: usize,
    value: &Value,
    kind: &str,
    texts: &[(String, std::borrow::Cow<'_, str>)],
    by: &embedded::Named<'_, '_>,
    reaches: &[Reach<'_>],
    also: &[String],
) -> Option<Unjudged> {
    let (field, keys, accounts) = texts.iter().find_map(|(field, text)| {
        let keys = if embedded::names_labels(text) { named_keys(text, by.keys) } else { Vec::new() };
        let accounts = embedded::named_accounts(text, by.accounts);
        (!keys.is_empty() || !accounts.is_empty()).then(|| (field.clone(), keys, accounts))
    })?;
    let mut met: Vec<usize> = keys
        .iter()
        .flat_map(|key| by.keys[key].iter().copied())
        .chain(accounts.iter().flat_map(|account| by.accounts[account].iter().copied()))
        .collect();
    met.sort_unstable();
    met.dedup();
    let sources: Vec<&Source> = met.iter().map(|&r| reaches[r].source).collect();
    let names = identities(&names_of(&sources));
    let article = kinds::article(kind);
    let message = match (keys.is_empty(), accounts.join(", ")) {
        (false, accounts) if accounts.is_empty() => format!(
            "{article} {kind} whose {field} embeds labels, among them {}, that {names} selects: whatever reads \
             it (a pod template file, a controller's defaults) may make pods that carry them, in any namespace, \
             where the build does not see; keep the label out of it",
            keys.join(", ")
        ),
        (true, accounts) => format!(
            "{article} {kind} whose {field} names the service account {accounts} for pods, which {names} \
             requires: whatever reads it (a controller's defaults, a pod template file) may make pods that run \
             as it, in any namespace, where the build does not see; keep the service account out of it"
        ),
        (false, accounts) => format!(
            "{article} {kind} whose {field} embeds labels, among them {}, and the service account {accounts}, \
             that {names} selects: whatever reads it (a pod template file, a controller's defaults) may make \
             pods that carry them and run as it, in any namespace, where the build does not see; keep the \
             labels and the service account out of it",
            keys.join(", ")
        ),
    };
    Some(record(position, value, field, message, &sources, also))
}

/// The label keys of `by_key` that `text` names, each once, in the order met: each run of
/// label-key characters, or the part of it after a `.` (a setting that joins a prefix and the
/// key: Spark's `spark.kubernetes.executor.label.<key>`), then each key it writes escaped
/// ([`unescaped`]).
fn named_keys<'k>(text: &str, by_key: &HashMap<&'k str, Vec<usize>>) -> Vec<&'k str> {
    let plain = unescaped(text);
    let mut keys: Vec<&'k str> = Vec::new();
    for token in tokens(text).chain(plain.iter().flat_map(|p| tokens(p))) {
        let suffixes = token.match_indices('.').map(|(at, _)| &token[at + 1..]);
        for word in std::iter::once(token).chain(suffixes) {
            if let Some((key, _)) = by_key.get_key_value(word)
                && !keys.contains(key)
            {
                keys.push(key);
            }
        }
    }
    keys
}

/// Every namespace `value` names, its own and those of the objects it holds (a `namespace`
/// string, or a `namespaces` list, at any depth, or one under a longer name: a
/// `targetNamespace`, a `defaultNamespace`): its controller may make pods in any of them
/// (Argo Events' Sensor creates its trigger's object in the namespace the object names, else
/// its own: argo-events `pkg/sensors/triggers/standard-k8s/standard-k8s.go`, `Execute`; k3s'
/// HelmChart installs its chart in `spec.targetNamespace`: k3s-io/helm-controller
/// `pkg/apis/helm.cattle.io/v1/types.go`, `HelmChartSpec`). Empty: it names none, or holds a
/// text that may hold or fetch a manifest of its own (a URL, a manifest as text): it may
/// make pods anywhere.
fn namespaces_named(value: &Value) -> Vec<&str> {
    /// Whether a text may hold or fetch a manifest, whose namespaces the walk cannot see: a
    /// URL (`://`), or text over several lines that names a `namespace` (an Argo Events
    /// trigger's `inline` or `url` source: argo-events `pkg/sensors/artifacts/store.go`,
    /// `GetArtifactReader`).
    fn hides(text: &str) -> bool {
        text.contains("://") || (text.contains('\n') && tokens(text).any(|t| t == "namespace"))
    }
    fn walk<'v>(value: &'v Value, out: &mut Vec<&'v str>, hidden: &mut bool) {
        match value {
            Value::Object(map) => {
                for (key, child) in map.iter() {
                    let one = key == "namespace" || key.ends_with("Namespace");
                    let many = key == "namespaces" || key.ends_with("Namespaces");
                    match child {
                        Value::String(ns) if one && !ns.is_empty() => out.push(ns),
                        Value::Array(names) if many => {
                            out.extend(names.iter().filter_map(Value::as_str).filter(|ns| !ns.is_empty()))
                        }
                        _ => walk(child, out, hidden),
                    }
                }
            }
            Value::Array(entries) => entries.iter().for_each(|e| walk(e, out, hidden)),
            Value::String(text) => *hidden |= hides(text),
            _ => {}
        }
    }
    let (mut out, mut hidden) = (Vec::new(), false);
    walk(value, &mut out, &mut hidden);
    if hidden {
        return Vec::new();
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether label `key` is in the domain of API group `group`, where the group's controller
/// may label its pods without naming the key: a key prefixed by the group itself
/// (`serving.knative.dev/service`, Knative's), or by a domain registered with it
/// (`training.kubeflow.org/` of `kubeflow.org`, `volcano.sh/` of `batch.volcano.sh`); under
/// Kubernetes' shared domains (`k8s.io`, `x-k8s.io`, `kubernetes.io`), a project's own first
/// label (JobSet's `jobset.x-k8s.io` labels its pods `jobset.sigs.k8s.io/jobset-name`:
/// jobset `pkg/controllers/jobset_controller.go`, `labelAndAnnotateObject`).
fn own_domain(key: &str, group: &str) -> bool {
    let Some((prefix, _)) = key.split_once('/') else { return false };
    if group.is_empty() || !group.contains('.') {
        return false;
    }
    let shared = |d: &str| {
        ["k8s.io", "x-k8s.io", "kubernetes.io"].iter().any(|s| d == *s || d.ends_with(&format!(".{s}")))
    };
    let registered = |d: &str| {
        let labels: Vec<&str> = d.rsplitn(3, '.').collect();
        labels.get(..2).map(|l| format!("{}.{}", l[1], l[0]))
    };
    let first = |d: &str| d.split('.').next().unwrap_or_default().to_string();
    if shared(prefix) || shared(group) {
        shared(prefix) && shared(group) && prefix.contains('.') && first(prefix) == first(group)
    } else {
        registered(prefix).is_some() && registered(prefix) == registered(group)
    }
}

/// Whether any controller may write the label key `key` on its pods: a key with no prefix
/// (`app`, `name`), or one of Kubernetes' own domains (the recommended
/// `app.kubernetes.io/instance`, ...). A key of another domain only its project's
/// controller writes, or an item that names it.
fn shared_key(key: &str) -> bool {
    match key.split_once('/') {
        None => true,
        Some((prefix, _)) => {
            ["k8s.io", "kubernetes.io"].iter().any(|d| prefix == *d || prefix.ends_with(&format!(".{d}")))
        }
    }
}

/// The names of `sources`.
fn names_of<'s>(sources: &[&'s Source]) -> Vec<&'s str> {
    sources.iter().map(|s| s.name.as_str()).collect()
}

/// Every item of `items`, in words a digest takes, in no order of the input's: an item read
/// whole by its value without the annotations that say where a reader met it, else by its
/// text as written where the caller reads files, else by its pod templates.
fn all_of<'t>(items: &[Input], written: &dyn Fn(usize) -> Option<&'t str>) -> Vec<String> {
    let mut words: Vec<String> = items
        .iter()
        .enumerate()
        .map(|(position, item)| {
            let mut hash = Sha256::new();
            match (item.value(), written(position)) {
                (Some(value), _) => digest(value, &mut hash, true),
                (None, Some(text)) => hash.update(text.as_bytes()),
                (None, None) => {
                    hash.update(format!("{:?}", item.workload().map(|w| w.placed_in(""))).as_bytes())
                }
            }
            hex(&hash.finalize())
        })
        .collect();
    words.sort_unstable();
    words
}

/// The items that a field of `value` names by kind and name (a Rollout's `workloadRef`, whose
/// controller runs the pods of the template it names: argo-rollouts `rollout/templateref.go`,
/// `Resolve`, and makes them again when it changes, `updateRolloutsReferenceAnnotation`), in
/// words a digest takes: each of that kind and name in `namespace` or in none, whole or as far
/// as its pod templates go, so that a change of one is a change of the field's record.
fn referenced(items: &[Input], value: &Value, field: &str, namespace: Option<&str>) -> Vec<String> {
    let mut named = Vec::new();
    if let Ok(Some(at)) = fields::lookup(value, field) {
        collect_refs(at, &mut named);
    }
    if named.is_empty() {
        return Vec::new();
    }
    let is_named = |kind: &str, name: &str, ns: &str| {
        (ns.is_empty() || Some(ns) == namespace) && named.iter().any(|&(k, n)| k == kind && n == name)
    };
    // Each item's words only once it is one of those named: most are not.
    let mut words: Vec<String> = items
        .iter()
        .filter_map(|item| match item.value() {
            Some(v) => {
                let text = |path: &str| fields::str_at(v, path).unwrap_or_default();
                is_named(text("kind"), text("metadata.name"), text("metadata.namespace")).then(|| {
                    let mut hash = Sha256::new();
                    digest(v, &mut hash, true);
                    hex(&hash.finalize())
                })
            }
            None => {
                let w = item.workload()?;
                is_named(w.kind(), w.name(), w.namespace().unwrap_or_default())
                    .then(|| format!("{:?}", w.placed_in("")))
            }
        })
        .collect();
    words.sort_unstable();
    words
}

/// Every mapping under `value` that names a `kind` and a `name`: an object reference.
fn collect_refs<'v>(value: &'v Value, out: &mut Vec<(&'v str, &'v str)>) {
    if let Some(map) = value.as_object() {
        let text = |key: &str| map.get(key).and_then(Value::as_str);
        if let (Some(kind), Some(name)) = (text("kind"), text("name")) {
            out.push((kind, name));
        }
        map.iter().for_each(|(_, entry)| collect_refs(entry, out));
    } else if let Some(list) = value.as_array() {
        list.iter().for_each(|entry| collect_refs(entry, out));
    }
}

/// Every pod template of `items` (what its pods are placed in, their labels and account), in
/// words a digest takes, in no order of the input's.
fn pod_templates(items: &[Input]) -> Vec<String> {
    let mut words: Vec<String> =
        input::workloads(items).flatten().map(|w| format!("{:?}", w.placed_in(""))).collect();
    words.sort_unstable();
    words
}

/// "ClusterSPIFFEID a", "ClusterSPIFFEIDs a, b".
fn identities(names: &[&str]) -> String {
    match names {
        [one] => format!("ClusterSPIFFEID {one}"),
        many => format!("ClusterSPIFFEIDs {}", many.join(", ")),
    }
}

/// The record of the item at `position`, reaching `sources`, whose digest also follows
/// `also`: the words of what else decides whether it reaches them (the Namespaces it may land
/// in, whose labels a `namespaceSelector` reads; a scaler's target).
fn record(
    position: usize,
    value: &Value,
    field: String,
    message: String,
    sources: &[&Source],
    also: &[String],
) -> Unjudged {
    let mut hash = Sha256::new();
    digest(value, &mut hash, true);
    hash.update(b"\0field\0");
    hash.update(field.as_bytes());
    for source in sources {
        hash.update(b"\0source\0");
        hash.update(source_words(source).as_bytes());
    }
    for words in also {
        hash.update(b"\0also\0");
        hash.update(words.as_bytes());
    }
    Unjudged { about: reference(position, value), field, message, digest: hex(&hash.finalize()), copy: false }
}

/// An identity as far as what it reaches and grants goes, in words a digest takes.
fn source_words(s: &Source) -> String {
    format!(
        "{}\0{:?}\0{:?}\0{}\0{:?}\0{:?}\0{}\0{:?}\0{}\0{}\0{}\0{:?}\0{:?}\0{}\0{}",
        s.name,
        s.pods,
        s.namespaces,
        s.spiffe_id_template,
        s.selector_templates,
        s.dns_name_templates,
        s.class_name,
        s.federates_with,
        s.admin,
        s.downstream,
        s.fallback,
        s.static_parent,
        s.ttls,
        s.auto_dns,
        s.store_svid
    )
}

/// Annotations the tools that read files put on items, which say where an item stands, not
/// what it is: left out of a digest, so that moving a file changes none.
const PLACE_ANNOTATIONS: [&str; 2] = ["config.kubernetes.io/", "internal.config.kubernetes.io/"];

/// Feeds `value` to `hash` canonically: maps by sorted key, each node tagged by its type.
fn digest(value: &Value, hash: &mut Sha256, top: bool) {
    match value {
        Value::Null => hash.update(b"n"),
        Value::Bool(b) => hash.update(if *b { b"t" } else { b"f" }),
        Value::Number(n) => {
            hash.update(b"#");
            hash.update(n.to_string().as_bytes());
        }
        Value::String(s) => {
            hash.update(b"s");
            hash.update(s.len().to_le_bytes());
            hash.update(s.as_bytes());
        }
        Value::Array(entries) => {
            hash.update(b"[");
            hash.update(entries.len().to_le_bytes());
            for e in entries.iter() {
                digest(e, hash, false);
            }
        }
        Value::Object(map) => {
            let mut keys: Vec<&str> = map.keys().collect();
            keys.sort_unstable();
            hash.update(b"{");
            for key in keys {
                let child = &map.get(key).expect("a key of the map");
                if top && key == "metadata" {
                    metadata(child, hash);
                    continue;
                }
                hash.update(key.len().to_le_bytes());
                hash.update(key.as_bytes());
                digest(child, hash, false);
            }
        }
    }
}

/// An item's metadata, without the annotations that say where it stands.
fn metadata(value: &Value, hash: &mut Sha256) {
    hash.update(b"metadata");
    let Value::Object(map) = value else { return digest(value, hash, false) };
    let mut keys: Vec<&str> = map.keys().collect();
    keys.sort_unstable();
    for key in keys {
        let child = map.get(key).expect("a key of the map");
        if let ("annotations", Value::Object(annotations)) = (key, child) {
            let mut kept: Vec<(&str, &Value)> = annotations
                .iter()
                .filter(|(k, _)| !PLACE_ANNOTATIONS.iter().any(|p| k.starts_with(p)))
                .collect();
            if kept.is_empty() {
                continue;
            }
            kept.sort_by_key(|(k, _)| *k);
            hash.update(key.as_bytes());
            for (k, v) in kept {
                hash.update(k.len().to_le_bytes());
                hash.update(k.as_bytes());
                digest(v, hash, false);
            }
            continue;
        }
        hash.update(key.len().to_le_bytes());
        hash.update(key.as_bytes());
        digest(child, hash, false);
    }
}

/// The label keys of `by_key` that `value` names, each with the path of the first key or
/// string that names it, in the order met. A text names a key when it holds it with no
/// character of a label key on either side (`app` in `labels["app"]`, in `app=llama`, not in
/// `apps/v1`): each run of such characters is looked up whole.
fn naming<'k>(value: &Value, by_key: &HashMap<&'k str, Vec<usize>>) -> Vec<(String, &'k str)> {
    let mut found = Vec::new();
    if !by_key.is_empty() {
        naming_at(value, by_key, &mut Vec::new(), &mut found);
    }
    found
}

fn naming_at<'k>(
    value: &Value,
    by_key: &HashMap<&'k str, Vec<usize>>,
    path: &mut Vec<String>,
    found: &mut Vec<(String, &'k str)>,
) {
    let look = |text: &str, path: &[String], found: &mut Vec<(String, &'k str)>| {
        for key in named_keys(text, by_key) {
            if !found.iter().any(|(_, k)| *k == key) {
                found.push((path.join("."), key));
            }
        }
    };
    match value {
        Value::String(s) => look(s, path, found),
        Value::Object(map) => {
            for (key, child) in map.iter() {
                path.push(key.to_string());
                look(key, path, found);
                naming_at(child, by_key, path, found);
                path.pop();
            }
        }
        Value::Array(entries) => {
            for (i, child) in entries.iter().enumerate() {
                let last = path.pop().unwrap_or_default();
                path.push(format!("{last}[{i}]"));
                naming_at(child, by_key, path, found);
                path.pop();
                path.push(last);
            }
        }
        _ => {}
    }
}

/// The label keys `text` may write escaped, undone: each segment of a JSON pointer
/// (`/metadata/labels/app`; RFC 6901, its `~1` a `/` and `~0` a `~`: JSON patches, Kyverno's
/// `patchesJson6902`, kustomize's patches), a word with a backslash before a `.` or `/`
/// (each segment of a dotted path: kubectl's JSONPath, Helm's `--set`) or a percent-encoded
/// `/` (URLs), and the whole text with its quoted-string escapes undone ([`quoted`]: a
/// manifest embedded as text, which its reader parses as YAML or JSON). Empty when `text`
/// holds none.
fn unescaped(text: &str) -> Vec<String> {
    let mut out = binaries(text);
    if !text.contains(['/', '~', '\\', '%']) {
        return out;
    }
    if text.contains('\\') {
        out.push(quoted(text));
    }
    let words = text.split(|c: char| !(is_key_char(c) || matches!(c, '~' | '\\' | '%')));
    for word in words.filter(|w| !w.is_empty()) {
        if let Some(pointer) = word.strip_prefix('/') {
            out.extend(pointer.split('/').map(|s| s.replace("~1", "/").replace("~0", "~")));
        } else if word.contains('\\') {
            out.extend(dotted(word));
        } else if word.contains('%') {
            out.push(word.replace("%2F", "/").replace("%2f", "/"));
        }
    }
    out
}

/// The YAML tags that make a scalar the bytes its base64 stands for: kubectl's reader and
/// Argo's (go-yaml v2, `decode.go`, `(*decoder).scalar`: `yaml_BINARY_TAG`) read a key or a
/// value so tagged as the string it decodes to.
const BINARY_TAGS: [&str; 2] = ["!!binary", "tag:yaml.org,2002:binary"];

/// Each scalar of `text` a [`BINARY_TAGS`] tag marks, decoded (its base64 may run over lines,
/// in a block scalar or a folded plain one), when it decodes to text.
fn binaries(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for tag in BINARY_TAGS {
        for (at, _) in text.match_indices(tag) {
            let rest = text[at + tag.len()..].trim_start_matches('>');
            let rest = rest
                .trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '|' | '-' | '+'));
            let base64 = |c: char| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=');
            // Its first word, and the run of base64 over lines from there.
            let word = rest.find(|c: char| !base64(c)).unwrap_or(rest.len());
            let run = rest.find(|c: char| !(base64(c) || c.is_whitespace())).unwrap_or(rest.len());
            for scalar in [&rest[..word], &rest[..run]] {
                if let Some(bytes) = embedded::base64(scalar)
                    && let Ok(decoded) = String::from_utf8(bytes)
                    && !out.contains(&decoded)
                {
                    out.push(decoded);
                }
            }
        }
    }
    out
}

/// `text` as a YAML or JSON double-quoted string reads it: `\\xNN`, `\\uNNNN`, `\\UNNNNNNNN` and
/// JSON's `\\/` are the characters they stand for, and a backslash at the end of a line joins
/// it to the next with no space, its indentation dropped (YAML 1.1 and 1.2, "Escaped
/// Characters" and "Double-Quoted Style"; PyYAML `scanner.py`, `scan_flow_scalar_non_spaces`,
/// `scan_flow_scalar_breaks`; go-yaml's `yaml_parser_scan_flow_scalar`). Any other escape
/// stands for no character of a label key, and reads as a space.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let hex = |width: usize| {
            after
                .get(1..=width)
                .filter(|digits| digits.bytes().all(|b| b.is_ascii_hexdigit()))
                .and_then(|digits| u32::from_str_radix(digits, 16).ok())
                .and_then(char::from_u32)
                .map(|c| (c, 1 + width))
        };
        let (read, used) = match after.chars().next() {
            Some('x') => hex(2).map_or((Some(' '), 1), |(c, n)| (Some(c), n)),
            Some('u') => hex(4).map_or((Some(' '), 1), |(c, n)| (Some(c), n)),
            Some('U') => hex(8).map_or((Some(' '), 1), |(c, n)| (Some(c), n)),
            Some('/') => (Some('/'), 1),
            Some('\r' | '\n') => {
                let line = after.strip_prefix("\r\n").or_else(|| after.get(1..)).unwrap_or_default();
                (None, after.len() - line.trim_start_matches([' ', '\t']).len())
            }
            Some(c) => (Some(' '), c.len_utf8()),
            None => (Some(' '), 0),
        };
        out.extend(read);
        rest = &after[used..];
    }
    out.push_str(rest);
    out
}

/// The segments of a dotted path whose escaped dots (`\\.`) belong to a segment.
fn dotted(word: &str) -> Vec<String> {
    let mut segments = vec![String::new()];
    let mut chars = word.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => segments.last_mut().expect("one segment").extend(chars.next()),
            '.' => segments.push(String::new()),
            c => segments.last_mut().expect("one segment").push(c),
        }
    }
    segments
}

/// Whether `c` may stand in a label key.
fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '/')
}

/// How a record names the item at `position`: its apiVersion, kind, namespace and name.
pub(super) fn reference(position: usize, value: &Value) -> Ref {
    let text = |path: &str| fields::str_at(value, path).unwrap_or_default().to_string();
    Ref {
        item: position,
        api_version: text("apiVersion"),
        kind: text("kind"),
        namespace: Some(text("metadata.namespace")).filter(|ns| !ns.is_empty()),
        name: text("metadata.name"),
        path: None,
    }
}

/// Whether an annotation only says where a reader met an item (kpt's and kustomize's
/// `config.kubernetes.io/index` and `path`, and every `internal.config.kubernetes.io/` one):
/// no applier reads it, so two copies apart only in those are the same object.
pub(super) fn where_it_sits(annotation: &str) -> bool {
    annotation.starts_with("internal.config.kubernetes.io/")
        || ["config.kubernetes.io/index", "config.kubernetes.io/path"].contains(&annotation)
}

/// The runs of label-key characters (letters, digits, `.`, `_`, `-`, `/`) of `text`.
fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !is_key_char(c)).filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests;
