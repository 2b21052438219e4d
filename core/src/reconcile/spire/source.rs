//! A ClusterSPIFFEID as SPIRE Controller Manager reads it: where it comes from, its spec
//! parsed once as `ParseClusterSPIFFEIDSpec` parses it (api/v1alpha1/clusterspiffeid_webhook.go:
//! 101-168; an object that fails is skipped whole, reconciler.go:464-470), and the entry it
//! renders for one pod template (`renderPodEntry`, pkg/spireentry/entries.go:72-131).

use super::containers;
use super::lifetime::Lifetime;
use super::server::{self, Verdict};
use super::spiffe_id;
use super::template::{self, Data, Evaluated, Template};
use crate::api::cluster_spiffe_id::OutputLabels;
use crate::config::SelectorScope;
use crate::reconcile::cluster::seen::Other;
use crate::reconcile::cluster::selector::{Answer, Lookup, Selector};
use std::collections::BTreeMap;

/// Where a ClusterSPIFFEID of the output comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Rendered in this run for the binding at this input position.
    Rendered { binding: usize },
    /// What the binding at this input position would render but for the bindings it
    /// conflicts with, or another whose output has the same name: the kleym operator renders
    /// it whenever they do not stand beside it (`internal/controller`,
    /// `evaluateBindingConflicts` reads the bindings as they stand), as while a pull request is
    /// applied one object at a time, or where the API server refuses or removes one of them;
    /// and of two whose outputs share a name, the one it reconciles first
    /// (`authorizeManagedOutputApply`). Its entries are may-be ones ([`super::Unsure::Withheld`]).
    Withheld { binding: usize },
    /// Kept from the input at this position (foreign, the operator's, a fallback...).
    Input { item: usize },
}

/// A ClusterSPIFFEID of the output, as the manager reads it.
#[derive(Debug, Clone)]
pub struct Source {
    pub name: String,
    pub origin: Origin,
    pub class_name: String,
    /// Its `metadata.labels`: a manager with a label selector reads only the ClusterSPIFFEIDs
    /// that carry every label of it. A rendered object's are kept only under such a manager.
    pub labels: BTreeMap<String, String>,
    pub fallback: bool,
    /// `None` when the selector cannot be read at all.
    pub pods: Option<Selector>,
    pub namespaces: Option<Selector>,
    pub spiffe_id_template: String,
    pub selector_templates: Vec<String>,
    pub dns_name_templates: Vec<String>,
    pub federates_with: Vec<String>,
    /// `spec.admin`, `spec.downstream`: what its entries may do beyond holding the SVID.
    pub admin: bool,
    pub downstream: bool,
    /// For a ClusterStaticEntry: its parent ID. Its SPIFFE ID, selectors and DNS names are
    /// text, held in the template fields (text without actions is a constant template).
    pub static_parent: Option<String>,
    /// The X.509 and JWT SVID lifetimes it asks for, as written; `None`: the server's.
    pub ttls: [Option<String>; 2],
    /// For a binding's object under `selectorScope: Pool`: its binding's namespace and
    /// variant, the only pods `Binding` would have it select.
    pub narrow: Option<(String, String)>,
    /// `spec.autoPopulateDNSNames`: its entries also carry the DNS names of the Services whose
    /// endpoints are the pod (entries.go, `dnsNamesFromEndpoints`).
    pub auto_dns: bool,
    /// A ClusterStaticEntry's `spec.storeSVID`.
    pub store_svid: bool,
    /// Its `spec.hint`, which the manager copies to every entry and the SPIRE server bounds
    /// ([`server::of_hint`]).
    pub hint: String,
    /// One of this function's outputs, as committed, that a render replaces (with another
    /// spec) or removes: it reaches pods only if the folder is applied without a render.
    pub committed: bool,
    /// A render whose binding's output is committed with other entries, or read otherwise by
    /// the manager: it reaches pods only if the folder is rendered before it is applied.
    pub replaced: bool,
    /// Why the cluster may not keep the object ([`crate::reconcile::cluster::seen::Other`]).
    pub may_not_be_kept: Option<String>,
    /// Why the API server refuses the object for its schema, if it does: the cluster never
    /// holds it, and no entry is made of it.
    pub refusal: Option<String>,
}

impl Source {
    /// The kind of the object: `ClusterSPIFFEID` or `ClusterStaticEntry`.
    pub fn kind(&self) -> &'static str {
        if self.static_parent.is_some() {
            crate::api::cluster_spiffe_id::STATIC_ENTRY_KIND
        } else {
            crate::api::cluster_spiffe_id::KIND
        }
    }
}

/// What an entry lets the pods that hold its SVID do beyond holding it (entries.go:72-131
/// copies them from the spec, the DNS names rendered per pod): the SPIRE server's admin API,
/// minting for a downstream SPIRE server, trusting a foreign trust domain's bundle, the DNS
/// names in its X.509 SVID.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Powers {
    pub admin: bool,
    pub downstream: bool,
    pub federates_with: Vec<String>,
    /// Rendered; an action only the cluster settles is kept as written.
    pub dns_names: Vec<String>,
    /// The X.509 and JWT SVID lifetimes asked for, as written; `None`: the server's default.
    pub ttls: [Option<String>; 2],
    /// The SPIRE server hands the SVID and its key to an SVIDStore plugin (a static entry's
    /// `storeSVID`, `renderStaticEntry`): out of the cluster.
    pub store_svid: bool,
}

impl Powers {
    pub fn is_empty(&self) -> bool {
        *self == Powers::default()
    }

    /// Both sets of powers: the entries of two objects folded into one (the longer of two
    /// lifetimes, as the server reads them: [`Lifetime`]).
    pub fn merge(&mut self, other: &Powers) {
        self.admin |= other.admin;
        self.downstream |= other.downstream;
        self.store_svid |= other.store_svid;
        for (i, theirs) in other.ttls.iter().enumerate() {
            let longer = match (&self.ttls[i], theirs) {
                (_, None) => false,
                (None, Some(_)) => true,
                (Some(mine), Some(t)) => Lifetime::of(Some(t)).length() > Lifetime::of(Some(mine)).length(),
            };
            if longer {
                self.ttls[i].clone_from(theirs);
            }
        }
        for (mine, theirs) in
            [(&mut self.federates_with, &other.federates_with), (&mut self.dns_names, &other.dns_names)]
        {
            for t in theirs {
                if !mine.contains(t) {
                    mine.push(t.clone());
                }
            }
        }
    }
}

/// Whether selector `mine` selects what `theirs` does not: one it cannot read, one with
/// expressions, or one that lacks a label `theirs` asks for (none selects everything).
fn selects_more(mine: Option<&Selector>, theirs: Option<&Selector>) -> bool {
    let (Some(mine), Some(theirs)) = (mine, theirs) else { return mine.is_none() && theirs.is_some() };
    if mine == theirs {
        return false;
    }
    !mine.expressions.is_empty() || theirs.match_labels.iter().any(|l| !mine.match_labels.contains(l))
}

/// What a binding renders, for [`Source::rendered`].
pub struct RenderedOutput<'a> {
    pub name: &'a str,
    pub namespace: &'a str,
    pub variant: &'a str,
    pub pool_labels: &'a crate::api::labels::Labels,
    pub spiffe_id: &'a str,
    pub selectors: &'a [String],
    pub class_name: Option<&'a str>,
    /// Its `metadata.labels`, when the manager filters by labels (the only reader of them):
    /// `None` keeps none, which a large run without a filter need not hold.
    pub labels: Option<&'a OutputLabels>,
    /// Its `spec.hint`.
    pub hint: String,
}

impl Source {
    /// The rendered object of a binding, under `scope`.
    pub fn rendered(binding: usize, out: RenderedOutput<'_>, scope: SelectorScope) -> Source {
        let mut pods: Vec<(String, String)> =
            out.pool_labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let mut namespaces = Selector::default();
        if scope == SelectorScope::Binding {
            pods.push((
                crate::reconcile::rules::identity::VARIANT_LABEL.to_string(),
                out.variant.to_string(),
            ));
            namespaces.match_labels.push((
                crate::api::cluster_spiffe_id::NAMESPACE_NAME_LABEL.to_string(),
                out.namespace.to_string(),
            ));
        }
        Source {
            name: out.name.to_string(),
            origin: Origin::Rendered { binding },
            class_name: out.class_name.unwrap_or_default().to_string(),
            labels: out
                .labels
                .into_iter()
                .flat_map(OutputLabels::pairs)
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            fallback: false,
            pods: Some(Selector { match_labels: pods, expressions: Vec::new() }),
            namespaces: Some(namespaces),
            spiffe_id_template: out.spiffe_id.to_string(),
            selector_templates: out.selectors.to_vec(),
            dns_name_templates: Vec::new(),
            federates_with: Vec::new(),
            admin: false,
            downstream: false,
            static_parent: None,
            ttls: [None, None],
            narrow: (scope == SelectorScope::Pool)
                .then(|| (out.namespace.to_string(), out.variant.to_string())),
            committed: false,
            replaced: false,
            may_not_be_kept: None,
            auto_dns: false,
            store_svid: false,
            hint: out.hint.clone(),
            refusal: None,
        }
    }

    /// A ClusterSPIFFEID or ClusterStaticEntry the input keeps.
    pub fn of_input(other: &Other) -> Source {
        Source {
            name: other.name.clone(),
            origin: Origin::Input { item: other.item },
            class_name: other.class_name.clone(),
            labels: other.labels.clone(),
            fallback: other.fallback,
            pods: other.pods.clone(),
            namespaces: other.namespaces.clone(),
            spiffe_id_template: other.spiffe_id_template.clone(),
            selector_templates: other.selector_templates.clone(),
            dns_name_templates: other.dns_name_templates.clone(),
            federates_with: other.federates_with.iter().map(|td| trust_domain_name(td)).collect(),
            admin: other.admin,
            downstream: other.downstream,
            static_parent: other.static_parent.clone(),
            ttls: other.ttls.clone(),
            narrow: None,
            committed: other.committed,
            replaced: false,
            may_not_be_kept: other.may_not_be_kept.clone().or_else(|| unicode_dependent(other)),
            auto_dns: other.auto_dns,
            store_svid: other.store_svid,
            hint: other.hint.clone(),
            refusal: other.refusal.clone(),
        }
    }

    /// Whether its entries are `other`'s: the same ID, selectors, powers and class.
    pub fn same_entries(&self, other: &Source) -> bool {
        self.spiffe_id_template == other.spiffe_id_template
            && self.pods == other.pods
            && self.namespaces == other.namespaces
            && self.selector_templates == other.selector_templates
            && self.dns_name_templates == other.dns_name_templates
            && self.federates_with == other.federates_with
            && (self.admin, self.downstream, self.fallback) == (other.admin, other.downstream, other.fallback)
            && (self.auto_dns, self.store_svid) == (other.auto_dns, other.store_svid)
            && self.class_name == other.class_name
            && self.ttls == other.ttls
            && self.hint == other.hint
    }

    /// What this object lets pods have that `fresh` does not, each in a few words: another
    /// SPIFFE ID, a selector that selects more or a workload selector dropped, a power, a
    /// class, a longer lifetime. Empty when it grants nothing `fresh` does not.
    pub fn additions(&self, fresh: &Source) -> Vec<String> {
        let mut out = Vec::new();
        if self.spiffe_id_template != fresh.spiffe_id_template {
            out.push(format!("SPIFFE ID {}", self.spiffe_id_template));
        }
        for (field, mine, theirs) in [
            ("podSelector", &self.pods, &fresh.pods),
            ("namespaceSelector", &self.namespaces, &fresh.namespaces),
        ] {
            if selects_more(mine.as_ref(), theirs.as_ref()) {
                out.push(format!("a {field} that selects more"));
            }
        }
        for s in fresh.selector_templates.iter().filter(|s| !self.selector_templates.contains(s)) {
            out.push(format!("without the workload selector {s}"));
        }
        for t in self.dns_name_templates.iter().filter(|t| !fresh.dns_name_templates.contains(t)) {
            out.push(format!("dnsName {t}"));
        }
        for td in self.federates_with.iter().filter(|t| !fresh.federates_with.contains(t)) {
            out.push(format!("federatesWith {td}"));
        }
        if self.admin && !fresh.admin {
            out.push("admin".into());
        }
        if self.downstream && !fresh.downstream {
            out.push("downstream".into());
        }
        if self.auto_dns && !fresh.auto_dns {
            out.push("autoPopulateDNSNames".into());
        }
        if self.class_name != fresh.class_name {
            out.push(format!("className {:?}", self.class_name));
        }
        if !self.fallback && fresh.fallback {
            out.push("not a fallback".into());
        }
        for (i, name) in ["ttl", "jwtTtl"].iter().enumerate() {
            if let Some(mine) = &self.ttls[i] {
                // As the server reads them: a lifetime it refuses gives nothing, and any other
                // beside the fresh render's default may be longer than that default.
                let longer = match (Lifetime::of(Some(mine)), Lifetime::of(fresh.ttls[i].as_deref())) {
                    (Lifetime::Refused(_), _) | (Lifetime::ServerDefault, Lifetime::ServerDefault) => false,
                    (_, Lifetime::ServerDefault) => true,
                    (mine, theirs) => mine.length() > theirs.length(),
                };
                if longer && fresh.ttls[i].as_ref() != Some(mine) {
                    out.push(format!("{name} {mine}"));
                }
            }
        }
        out
    }
}

/// A `federatesWith` value as the manager holds it (`spiffeid.TrustDomainFromString`):
/// `spiffe://partner.org` is `partner.org`. One it refuses is kept as written, for
/// [`Prepared::of`] to refuse the object.
fn trust_domain_name(written: &str) -> String {
    spiffe_id::trust_domain(written).unwrap_or(written).to_string()
}

/// An object's spec, parsed as the manager parses it.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub pods: Selector,
    pub namespaces: Selector,
    id: Template,
    /// For an ID without actions: its text, or why it gives no pod an entry.
    id_constant: Option<Result<String, String>>,
    selectors: Vec<Template>,
    /// By selector: its judgement, read once when it has no actions.
    judged: Vec<Option<Judged>>,
    /// Whether every selector has no actions and is `type:value`: the first that does not
    /// hold settles the entry.
    all_judged: bool,
    dns: Vec<Template>,
    trust_domain: Option<String>,
    /// The powers every entry of the object carries; its DNS names are rendered per pod.
    powers: Powers,
    /// A ClusterStaticEntry's parent ID, part of its entry's key.
    parent: Option<String>,
    /// What the SPIRE server does with every entry of the object, as far as the object
    /// settles it ([`server::of_object`]); a DNS name rendered per pod is judged per pod.
    server: Verdict,
}

/// A rendered workload selector, read as the model judges it: `k8s:ns`, `k8s:sa`,
/// `k8s:pod-name`, `k8s:pod-label`, `k8s:ns-label` and the container and image selectors
/// ([`containers`]) are judged; any other is unknown at build time; one that is not
/// `type:value` gives no entry (entries.go:230-244).
#[derive(Debug, Clone)]
enum Judged {
    Namespace(String),
    ServiceAccount(String),
    PodName(String),
    PodLabel(String, String),
    /// `k8s:ns-label:<key>:<value>`: reported only by agents whose attestor sets
    /// `enable_namespace_labels` (spiffe/spire `pkg/agent/plugin/workloadattestor/k8s/k8s.go`,
    /// `Attest`, `getSelectorValuesFromNamespaceLabels`), so at best unknown; it never holds
    /// where the namespace's declared labels lack it.
    NamespaceLabel(String, String),
    /// Judged with the entry's other container selectors, for one container.
    Container(containers::Selector),
    Unknown,
    Invalid(String),
}

/// A selector's type and value, split at its first `:` as SPIRE parses one (`type:value`,
/// neither empty); `None` for one that is not.
pub(super) fn type_and_value(selector: &str) -> Option<(&str, &str)> {
    selector.split_once(':').filter(|(k, v)| !k.is_empty() && !v.is_empty())
}

impl Judged {
    fn of(selector: &str) -> Judged {
        let Some((kind, value)) = type_and_value(selector) else {
            return Judged::Invalid(format!("its workload selector {selector:?} is not type:value"));
        };
        match (kind, value.split_once(':')) {
            ("k8s", Some(("ns", ns))) => Judged::Namespace(ns.to_string()),
            ("k8s", Some(("sa", sa))) => Judged::ServiceAccount(sa.to_string()),
            ("k8s", Some(("pod-name", pod))) => Judged::PodName(pod.to_string()),
            ("k8s", Some(("pod-label", label))) => match label.split_once(':') {
                Some((k, v)) => Judged::PodLabel(k.to_string(), v.to_string()),
                // `k8s:pod-label:key` without a value holds for no pod.
                None => Judged::PodLabel(String::new(), String::new()),
            },
            ("k8s", Some(("ns-label", label))) => match label.split_once(':') {
                Some((k, v)) => Judged::NamespaceLabel(k.to_string(), v.to_string()),
                // Reported as `key:value`: one without a value holds for no pod.
                None => Judged::PodLabel(String::new(), String::new()),
            },
            ("k8s", Some((kind, value))) => {
                containers::Selector::of(kind, value).map_or(Judged::Unknown, Judged::Container)
            }
            _ => Judged::Unknown,
        }
    }

    fn holds(&self, data: &Data<'_>) -> Result<Answer, String> {
        let yes = |b: bool| if b { Answer::Yes } else { Answer::No };
        Ok(match self {
            Judged::Namespace(ns) => yes(Some(ns.as_str()) == data.namespace),
            Judged::ServiceAccount(sa) => {
                data.service_account.map_or(Answer::Unknown, |have| yes(have == sa))
            }
            Judged::PodName(pod) => data.pod_name.map_or(Answer::Unknown, |have| yes(have == pod)),
            Judged::PodLabel(k, _) if k.is_empty() => Answer::No,
            Judged::PodLabel(k, v) => match (data.labels)(k) {
                Lookup::Value(have) => yes(have == v),
                Lookup::Absent => Answer::No,
                Lookup::Unknown | Lookup::Present => Answer::Unknown,
            },
            Judged::NamespaceLabel(k, v) => match namespace_label(k, data) {
                Lookup::Value(have) if have != v => Answer::No,
                Lookup::Absent => Answer::No,
                // It holds only if the agents report namespace labels: the cluster's setting.
                _ => Answer::Unknown,
            },
            // Judged with the others ([`Pending`]).
            Judged::Container(_) => Answer::Yes,
            Judged::Unknown => Answer::Unknown,
            Judged::Invalid(why) => return Err(why.clone()),
        })
    }
}

/// Label `key` of the pods' namespace: its name label, one a controller writes (unknown),
/// else the declared Namespace's (unknown when the input declares none).
fn namespace_label<'d>(key: &str, data: &Data<'d>) -> Lookup<'d> {
    use super::namespaces::CONTROLLER_NAMESPACE_LABELS;
    match (data.namespace, data.namespace_labels) {
        (Some(ns), _) if key == super::NAMESPACE_NAME_LABEL => Lookup::Value(ns),
        _ if CONTROLLER_NAMESPACE_LABELS.iter().any(|s| key.ends_with(s)) => Lookup::Unknown,
        (Some(_), Some(labels)) => labels.get(key).map_or(Lookup::Absent, |v| Lookup::Value(v)),
        _ => Lookup::Unknown,
    }
}

/// What an unknown `k8s:ns-label` selector hangs on, in the words of `hangsOn`: the declared
/// label it reads, or the namespace's lack of a Namespace object.
fn namespace_fact(key: &str, data: &Data<'_>) -> String {
    let ns = data.namespace.unwrap_or("(not named)");
    match namespace_label(key, data) {
        Lookup::Value(v) => format!("namespace {ns} label {key}: {v}"),
        _ if data.namespace_labels.is_some() => format!("namespace {ns} label {key}: set by a controller"),
        _ => format!("namespace {ns}: no Namespace object"),
    }
}

/// Whether an action kept as written reads only what the cluster alone sets, never the pod
/// template: the pod's generated name, its UID, or one label (`index .PodMeta.Labels "key"`,
/// `.PodMeta.Labels.key`), which is unknown only where its controller sets it with a value
/// only it knows (a template's own labels are settled). Any other unknown may read a field
/// the template writes (`.PodMeta.Annotations`, `.PodSpec.Hostname`), or the node the
/// template places its pods on (`.NodeMeta`, through `nodeName`, `nodeSelector`, affinity).
pub(super) fn cluster_only(action: &str) -> bool {
    let inner = action.trim_start_matches("{{").trim_end_matches("}}");
    let inner = inner.trim_start_matches('-').trim_end_matches('-').trim();
    let one_label = match inner.strip_prefix("index .PodMeta.Labels ") {
        // One key, as one quoted string: nothing else read.
        Some(key) => {
            let key = key.trim();
            key.len() >= 2
                && key.starts_with('"')
                && key.ends_with('"')
                && !key[1..key.len() - 1].contains(['"', '\\'])
        }
        None => inner
            .strip_prefix(".PodMeta.Labels.")
            .is_some_and(|key| !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')),
    };
    one_label || matches!(inner, ".PodMeta.Name" | ".PodMeta.GetName" | ".PodMeta.UID" | ".PodMeta.GetUID")
}

/// Whether an evaluated text holds an action kept as written that reads what the cluster
/// alone sets of a pod ([`cluster_only`]): its name, or a label its controller sets.
fn reads_pod(text: &Evaluated) -> bool {
    text.unknown.iter().any(|a| cluster_only(a))
}

/// What an unknown pod name, or a label the pods' controller sets, hangs on beside the
/// template, in the words of `hangsOn`: how the controller names, numbers and labels the pods
/// (a StatefulSet's replicas and first ordinal, an Indexed Job's completions, a
/// LeaderWorkerSet's groups, the labels KServe may leave off); `None` when it does so from
/// nothing the item holds.
pub(super) fn numbering_fact(data: &Data<'_>) -> Option<String> {
    let owner = data.owner?;
    owner.controller?;
    (!owner.detail.is_empty())
        .then(|| format!("{}'s pods, as its controller makes them: {}", owner.name, owner.detail))
}

/// Whether an evaluated text holds an action that may read the pod template.
fn reads_template(text: &Evaluated) -> bool {
    text.unknown.iter().any(|a| !cluster_only(a))
}

/// The entry an object renders for a pod template.
pub struct Made {
    /// `None` when the ID has no actions ([`Prepared::constant_id`]).
    pub spiffe_id: Option<Evaluated>,
    pub attests: Answer,
    /// With details only, and only when it may attest: the selectors that cannot be judged.
    pub misses: Vec<String>,
    /// With details only: a hash of the rendered workload selectors, sorted.
    pub selectors: u64,
    /// With details only, and only when it may attest: what the entry lets its pods do.
    pub powers: Powers,
    /// With details only: the containers as written an unknown container or image selector
    /// hangs on ([`containers::hold`]), and the declared namespace label an unknown
    /// `k8s:ns-label` reads.
    pub hangs_on: Vec<String>,
    /// With details only: whether its SPIFFE ID, a DNS name or a workload selector is
    /// unknown in a way the pod template may settle ([`reads_template`]; a selector of a type
    /// the model does not judge, such as `k8s:node-name` or `unix:uid`, by `nodeName` or
    /// `securityContext`): a change of the template may change it.
    pub reads_template: bool,
    /// With details only, and only when it may attest: what the SPIRE server does with it.
    pub server: Verdict,
}

impl Made {
    /// An entry that never attests, of this ID.
    fn never(spiffe_id: Option<Evaluated>) -> Made {
        Made {
            spiffe_id,
            attests: Answer::No,
            misses: Vec::new(),
            selectors: 0,
            powers: Powers::default(),
            hangs_on: Vec::new(),
            reads_template: false,
            server: Verdict::Takes,
        }
    }
}

impl Prepared {
    /// The spec of `source` as `ParseClusterSPIFFEIDSpec` reads it, in its order; `Err` says
    /// why the manager (and its admission webhook) refuses the object.
    pub fn of(source: &Source, trust_domain: Option<&str>) -> Result<Prepared, String> {
        if let Some(why) = &source.refusal {
            return Err(why.clone());
        }
        if let Some(parent) = &source.static_parent {
            // renderStaticEntry (pkg/spireentry/entries.go): the IDs must parse; its spiffeID
            // and selectors are no templates.
            spiffe_id::parse(parent)
                .map_err(|e| format!("its parentID {parent:?} is not a SPIFFE ID: {e}"))?;
            check_id(&Evaluated::known(source.spiffe_id_template.clone()), trust_domain)
                .map_err(|e| e.replacen("its SPIFFE ID", "its spiffeID", 1))?;
            for s in &source.selector_templates {
                if matches!(Judged::of(s), Judged::Invalid(_)) {
                    return Err(format!("its selector {s:?} is not type:value"));
                }
            }
        } else if source.spiffe_id_template.is_empty() {
            return Err("its spiffeIDTemplate is empty".into());
        }
        // A static entry's fields are text, never templates: `{{` in them is what it says.
        let is_static = source.static_parent.is_some();
        let parse = |text: &str, name: &str| match is_static {
            true => Ok(Template::literal(text)),
            false => template::parse(text, name),
        };
        let id = parse(&source.spiffe_id_template, "spiffeIDTemplate").map_err(|e| {
            format!(
                "its spiffeIDTemplate {:?} does not parse as a Go template: {e}",
                source.spiffe_id_template
            )
        })?;
        let selector = |s: &Option<Selector>, field: &str| match s {
            None => Err(format!("its {field} cannot be read as a label selector")),
            Some(s) => match s.problem() {
                Some(why) => {
                    Err(format!("its {field} is refused by Kubernetes' label selector parser: {why}"))
                }
                None => Ok(s.clone()),
            },
        };
        let namespaces = selector(&source.namespaces, "namespaceSelector")?;
        let pods = selector(&source.pods, "podSelector")?;
        for td in &source.federates_with {
            spiffe_id::trust_domain(td)
                .map_err(|e| format!("its federatesWith value {td:?} is not a trust domain: {e}"))?;
        }
        // The names ParseClusterSPIFFEIDSpec gives them (clusterspiffeid_webhook.go): a
        // template that defines its own name runs that definition.
        let templates = |list: &[String], field: &str, name: &str| -> Result<Vec<Template>, String> {
            list.iter()
                .map(|t| {
                    parse(t, name)
                        .map_err(|e| format!("its {field} value {t:?} does not parse as a Go template: {e}"))
                })
                .collect()
        };
        let dns = templates(&source.dns_name_templates, "dnsNameTemplates", "dnsNameTemplate")?;
        let selectors =
            templates(&source.selector_templates, "workloadSelectorTemplates", "workloadSelectorTemplate")?;
        let id_constant = id.constant().map(|text| {
            let known = Evaluated::known(text.to_string());
            check_id(&known, trust_domain).map(|()| known.text)
        });
        let judged: Vec<Option<Judged>> = selectors.iter().map(|t| t.constant().map(Judged::of)).collect();
        let mut server = server::of_object(source, dns.iter().filter_map(Template::constant), trust_domain);
        if let Some(Ok(id)) = &id_constant {
            server = server::of_spiffe_id(id, true).and(server);
        }
        let all_judged = judged.iter().all(|j| matches!(j, Some(j) if !matches!(j, Judged::Invalid(_))));
        Ok(Prepared {
            pods,
            namespaces,
            id,
            id_constant,
            selectors,
            judged,
            all_judged,
            dns,
            trust_domain: trust_domain.map(str::to_string),
            powers: Powers {
                admin: source.admin,
                downstream: source.downstream,
                federates_with: source.federates_with.clone(),
                dns_names: Vec::new(),
                ttls: source.ttls.clone(),
                store_svid: source.store_svid,
            },
            parent: source.static_parent.clone(),
            server,
        })
    }

    /// The ID of an object whose `spiffeIDTemplate` has no actions.
    pub fn constant_id(&self) -> Evaluated {
        match &self.id_constant {
            Some(Ok(text)) => Evaluated::known(text.clone()),
            _ => Evaluated::known(String::new()),
        }
    }

    /// The one namespace whose pods its entry may attest for, when for every other pod its
    /// entry is made and never attests: its ID, DNS names and workload selectors have no
    /// actions, the ID is valid, every selector is `type:value`, and one is a `k8s:ns`. A
    /// binding's rendered object is one.
    pub fn only_namespace(&self) -> Option<&str> {
        let constant = matches!(self.id_constant, Some(Ok(_)))
            && self.all_judged
            && self.dns.iter().all(|d| d.constant().is_some());
        if !constant {
            return None;
        }
        self.judged.iter().find_map(|j| match j {
            Some(Judged::Namespace(ns)) => Some(ns.as_str()),
            _ => None,
        })
    }

    /// The entry for the pods of `data`, in `renderPodEntry`'s order: SPIFFE ID, DNS names,
    /// workload selectors; `Err` when the manager cannot make it. `details` asks for the
    /// selectors (to tell equal entries apart, and say what cannot be judged).
    pub fn entry(&self, data: &Data<'_>, details: bool) -> Result<Made, String> {
        let spiffe_id = match &self.id_constant {
            Some(Ok(_)) => None,
            Some(Err(why)) => return Err(why.clone()),
            None => {
                let id = self.id.evaluate(data).map_err(|e| format!("its spiffeIDTemplate fails: {e}"))?;
                check_id(&id, self.trust_domain.as_deref())?;
                Some(id)
            }
        };
        let mut template = spiffe_id.as_ref().is_some_and(reads_template);
        // Whether an unknown reads the pods' name or a label their controller sets.
        let mut named = spiffe_id.as_ref().is_some_and(reads_pod);
        let mut facts = Vec::new();
        let mut dns_names = Vec::new();
        let mut server =
            spiffe_id.as_ref().map_or(Verdict::Takes, |id| server::of_spiffe_id(&id.text, id.is_known()));
        for dns in &self.dns {
            match dns.constant() {
                Some(text) => dns_names.push(text.to_string()),
                None => {
                    let name = dns.evaluate(data).map_err(|e| format!("its dnsNameTemplates fail: {e}"))?;
                    template |= reads_template(&name);
                    named |= reads_pod(&name);
                    server = server.and(server::of_dns_name(&name.text, &name.unknown));
                    dns_names.push(name.text)
                }
            }
        }
        let mut attests = Answer::Yes;
        let mut pending = Vec::new();
        // A judged selector's answer, noting what an unknown one hangs on.
        let judge = |judged: &Judged, facts: &mut Vec<String>, template: &mut bool, named: &mut bool| {
            let holds = judged.holds(data)?;
            if holds == Answer::Unknown {
                match judged {
                    Judged::NamespaceLabel(k, _) => facts.push(namespace_fact(k, data)),
                    Judged::Unknown => *template = true,
                    Judged::PodName(_) | Judged::PodLabel(..) => *named = true,
                    _ => {}
                }
            }
            Ok::<Answer, String>(holds)
        };
        for (t, judged) in self.selectors.iter().zip(&self.judged) {
            let holds = match judged {
                Some(Judged::Container(c)) => {
                    pending.push(c.clone());
                    continue;
                }
                Some(judged) => judge(judged, &mut facts, &mut template, &mut named)?,
                None => {
                    let s =
                        t.evaluate(data).map_err(|e| format!("its workloadSelectorTemplates fail: {e}"))?;
                    match s.is_known().then(|| Judged::of(&s.text)) {
                        Some(Judged::Container(c)) => {
                            pending.push(c);
                            continue;
                        }
                        Some(judged) => judge(&judged, &mut facts, &mut template, &mut named)?,
                        None => {
                            template |= reads_template(&s);
                            named |= reads_pod(&s);
                            Answer::Unknown
                        }
                    }
                }
            };
            match holds {
                // Nothing after it can fail: the entry never attests.
                Answer::No if self.all_judged && !details => {
                    return Ok(Made::never(spiffe_id));
                }
                Answer::No => attests = Answer::No,
                Answer::Unknown if attests == Answer::Yes => attests = Answer::Unknown,
                _ => {}
            }
        }
        let (held, hangs_on) = containers::hold(&pending, data.containers);
        attests = match (attests, held) {
            (Answer::No, _) | (_, Answer::No) => Answer::No,
            (Answer::Unknown, _) | (_, Answer::Unknown) => Answer::Unknown,
            _ => Answer::Yes,
        };
        if attests == Answer::No && !details {
            return Ok(Made::never(spiffe_id));
        }
        let mut made = Made::never(spiffe_id);
        made.attests = attests;
        if details && attests != Answer::No {
            (_, made.misses) = self.selectors(data)?;
            made.selectors = self.rendered_selectors(data);
            made.powers = Powers { dns_names, ..self.powers.clone() };
            made.hangs_on = hangs_on;
            facts.extend(named.then(|| numbering_fact(data)).flatten());
            for fact in facts {
                if !made.hangs_on.contains(&fact) {
                    made.hangs_on.push(fact);
                }
            }
            made.reads_template = template;
            made.server = server.and(self.server.clone());
        }
        Ok(made)
    }

    /// Whether the workload selectors hold for the pods of `data`, and those that do not
    /// or cannot be judged. The container and image selectors hold together, for one
    /// container: when they do not, each is listed.
    pub fn selectors(&self, data: &Data<'_>) -> Result<(Answer, Vec<String>), String> {
        let mut attests = Answer::Yes;
        let mut misses = Vec::new();
        let mut pending = Vec::new();
        for t in &self.selectors {
            let s = t.evaluate(data)?;
            let holds = match s.is_known().then(|| Judged::of(&s.text)) {
                Some(Judged::Container(c)) => {
                    pending.push((c, s.text));
                    continue;
                }
                Some(judged) => judged.holds(data)?,
                None => Answer::Unknown,
            };
            match holds {
                Answer::Yes => continue,
                Answer::No => attests = Answer::No,
                Answer::Unknown if attests == Answer::Yes => attests = Answer::Unknown,
                Answer::Unknown => {}
            }
            misses.push(s.text);
        }
        let together: Vec<containers::Selector> = pending.iter().map(|(c, _)| c.clone()).collect();
        match containers::hold(&together, data.containers).0 {
            Answer::Yes => {}
            held => {
                if held == Answer::No {
                    attests = Answer::No;
                } else if attests == Answer::Yes {
                    attests = Answer::Unknown;
                }
                misses.extend(pending.into_iter().map(|(_, text)| text));
            }
        }
        Ok((attests, misses))
    }

    /// The manager's key of its entry's selectors: each split at its first `:` into a type
    /// and a value (`parseSelector`, entries.go), with the pod's own `k8s:pod-uid` one
    /// (`renderPodEntry`), sorted by type then value, each type and value written one after
    /// the other with nothing between (`makeEntryKey`, `sortSelectors`, reconciler.go): so
    /// `k:8sns:serving` is one key with `k8s:ns:serving`, and two objects writing them declare
    /// one entry. A static entry's parent is its own, not the pod's node's, and it has no
    /// `k8s:pod-uid`: its parent is part of the key (`renderStaticEntry`, `makeEntryKey`),
    /// so two static entries of one parent, SPIFFE ID and selectors are one entry.
    fn rendered_selectors(&self, data: &Data<'_>) -> u64 {
        use std::hash::{Hash, Hasher};
        let texts: Vec<std::borrow::Cow<'_, str>> = self
            .selectors
            .iter()
            .filter_map(|t| match t.constant() {
                Some(text) => Some(std::borrow::Cow::Borrowed(text)),
                None => t.evaluate(data).ok().map(|e| std::borrow::Cow::Owned(e.text)),
            })
            .collect();
        let pod_uid = self.parent.is_none().then_some("k8s:pod-uid:");
        let key = selectors_key(texts.iter().map(|t| t.as_ref()).chain(pod_uid));
        let mut hasher = std::hash::DefaultHasher::new();
        (self.parent.as_deref(), key).hash(&mut hasher);
        hasher.finish()
    }
}

/// The selectors' part of the manager's key of an entry (`makeEntryKey`, `sortSelectors`,
/// pkg/spireentry/reconciler.go): each selector split at its first `:` into a type and a value
/// (`parseSelector`, entries.go; one without is dropped), sorted by type then value, all
/// written one after the other with nothing between.
pub fn selectors_key<'a>(selectors: impl IntoIterator<Item = &'a str>) -> String {
    let mut pairs: Vec<(&str, &str)> = selectors.into_iter().filter_map(|s| s.split_once(':')).collect();
    pairs.sort_unstable();
    pairs.iter().flat_map(|(t, v)| [*t, *v]).collect()
}

/// Whether a SPIFFE ID can be the manager's: go-spiffe parses it and it is of the manager's
/// trust domain (`renderSPIFFEID`, entries.go). A partly known ID is refused when what is
/// known already rules it out for any text the cluster could put in its unknown actions:
/// `<no value>` of a missing label, a scheme other than `spiffe://`, a character no SPIFFE ID
/// holds, an empty or dot segment, a trailing slash, a trust domain that is not the manager's.
fn check_id(id: &Evaluated, trust_domain: Option<&str>) -> Result<(), String> {
    if id.is_known() {
        let (td, _) = spiffe_id::parse(&id.text)
            .map_err(|e| format!("its SPIFFE ID {:?} is not valid: {e}", id.text))?;
        if let Some(own) = trust_domain
            && td != own
        {
            return Err(format!("its SPIFFE ID {} is not of trust domain {own}", id.text));
        }
        return Ok(());
    }
    match never_valid(&id.known_runs().collect::<Vec<_>>(), trust_domain) {
        Some(why) => Err(format!("its SPIFFE ID {:?} can never be valid: {why}", id.text)),
        None => Ok(()),
    }
}

/// Why no text in the gaps between `runs` (the known text of an ID, in order, two or more)
/// makes a SPIFFE ID go-spiffe takes, of trust domain `own` when given; `None` when some text
/// may.
fn never_valid(runs: &[&str], own: Option<&str>) -> Option<String> {
    use spiffe_id::{SCHEME, path_char, trust_domain_char};
    if runs.last().is_some_and(|last| last.ends_with('/')) {
        return Some("it ends with /".into());
    }
    let first = runs.first().copied().unwrap_or_default();
    let Some(rest) = first.strip_prefix(SCHEME) else {
        if !SCHEME.starts_with(first) {
            return Some(format!("it does not start with {SCHEME}"));
        }
        // The scheme may end in a later run: only what no part of an ID holds is ruled out.
        let bad = |c: &char| !(c.is_ascii() && (path_char(*c as u8) || *c == '/' || *c == ':'));
        return runs
            .iter()
            .find_map(|run| run.chars().find(bad))
            .map(|c| format!("it holds {c:?}, which no SPIFFE ID may"));
    };
    let td_end = rest.find('/');
    let td = &rest[..td_end.unwrap_or(rest.len())];
    if let Some(c) = td.chars().find(|c| !(c.is_ascii() && trust_domain_char(*c as u8))) {
        return Some(format!("its trust domain holds {c:?}, which no trust domain may"));
    }
    match (td_end, own) {
        (Some(_), _) if td.is_empty() => return Some(spiffe_id::MISSING_TRUST_DOMAIN.into()),
        (Some(_), Some(own)) if td != own => return Some(format!("its trust domain {td:?} is not {own}")),
        // The trust domain goes on in the gap after this run: it starts with `td`.
        (None, Some(own)) if !own.starts_with(td) => {
            return Some(format!("its trust domain starts with {td:?}, and {own} does not"));
        }
        _ => {}
    }
    // After the trust domain, every run holds path characters and slashes; a segment a run
    // holds whole (after one of its slashes, up to the next or the end of the ID) is checked.
    let after_td = td_end.map_or("", |at| &rest[at..]);
    for (i, run) in runs.iter().enumerate() {
        let text = if i == 0 { after_td } else { run };
        if let Some(c) = text.chars().find(|c| !(c.is_ascii() && (path_char(*c as u8) || *c == '/'))) {
            return Some(format!("it holds {c:?}, which no SPIFFE ID may"));
        }
        let pieces: Vec<&str> = text.split('/').collect();
        let ends_id = i + 1 == runs.len();
        for (j, piece) in pieces.iter().enumerate().skip(1) {
            if j + 1 == pieces.len() && !ends_id {
                continue;
            }
            match *piece {
                "" => return Some(spiffe_id::EMPTY_SEGMENT.into()),
                "." | ".." => return Some(spiffe_id::DOT_SEGMENT.into()),
                _ => {}
            }
        }
    }
    None
}

/// What tests build a Source on.
#[cfg(test)]
impl Source {
    /// A ClusterSPIFFEID of the input (item 0) named `name`, of ID `spiffe://example.org/<name>`,
    /// that reads no selector and asks for nothing more.
    pub(crate) fn bare(name: &str) -> Source {
        Source {
            name: name.to_string(),
            origin: Origin::Input { item: 0 },
            class_name: String::new(),
            labels: Default::default(),
            fallback: false,
            pods: None,
            namespaces: None,
            spiffe_id_template: format!("spiffe://example.org/{name}"),
            selector_templates: Vec::new(),
            dns_name_templates: Vec::new(),
            federates_with: Vec::new(),
            admin: false,
            downstream: false,
            static_parent: None,
            ttls: [None, None],
            narrow: None,
            auto_dns: false,
            store_svid: false,
            hint: String::new(),
            committed: false,
            replaced: false,
            may_not_be_kept: None,
            refusal: None,
        }
    }
}

/// Why the manager's webhook may refuse a ClusterSPIFFEID the model reads, if it may: a
/// template action holding a character that is a letter or digit in the Unicode tables the
/// model's lexer reads (Go's `isAlphaNumeric` takes `unicode.IsLetter`, `IsDigit`) and may be
/// none in those of the Go release the manager is built with, which only the cluster knows
/// (Go 1.26 reads Unicode 15, where `Ᲊ`, U+1C89, is no letter yet). A static entry's fields
/// are no templates.
fn unicode_dependent(other: &Other) -> Option<String> {
    if other.static_parent.is_some() {
        return None;
    }
    let templates = std::iter::once(&other.spiffe_id_template)
        .chain(&other.selector_templates)
        .chain(&other.dns_name_templates);
    for text in templates {
        let actions = text.split("{{").skip(1).map(|rest| rest.split("}}").next().unwrap_or(rest));
        for action in actions {
            if let Some(c) = action.chars().find(|c| !c.is_ascii() && template::is_alphanumeric(*c)) {
                return Some(format!(
                    "a template action names {c:?} (U+{:04X}), a letter or digit only to some Go releases' \
                     Unicode tables: the manager's webhook, built with another, may refuse the object",
                    u32::from(c)
                ));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{Judged, Powers};

    /// renderSPIFFEID (entries.go) parses with go-spiffe's `spiffeid.FromString` and compares
    /// trust domains: the scheme in lower case only, a lower-case trust domain of any length.
    #[test]
    fn a_known_id_is_valid_exactly_where_go_spiffe_takes_it() {
        use super::{Evaluated, check_id};
        let check = |id: &str| check_id(&Evaluated::known(id.to_string()), Some("example.org"));
        for id in ["spiffe://example.org/ns/a/sa/b", "spiffe://example.org", "spiffe://example.org/Upper/..x"]
        {
            assert_eq!(check(id), Ok(()), "{id}");
        }
        for (id, why) in [
            ("SPIFFE://example.org/x", "scheme is missing or invalid"),
            ("spiffe://Example.org/x", "trust domain characters are limited"),
            ("spiffe://example.org/x/", "trailing slash"),
            ("spiffe://example.org/./x", "dot segments"),
            ("spiffe://other.org/x", "is not of trust domain example.org"),
        ] {
            assert!(check(id).is_err_and(|e| e.contains(why)), "{id}: {:?}", check(id));
        }
        // The Rust `spiffe` crate caps a trust domain at 255 bytes; go-spiffe does not.
        let long = format!("spiffe://{}/x", "a".repeat(300));
        assert_eq!(check_id(&Evaluated::known(long), None), Ok(()));
    }

    /// A partly known ID is refused only when no text in its unknown actions makes it one
    /// go-spiffe takes of the manager's trust domain.
    #[test]
    fn a_partly_known_id_is_refused_only_when_nothing_unknown_could_mend_it() {
        use super::never_valid;
        let own = Some("example.org");
        for runs in [
            vec!["spiffe://example.org/ns/", ""],
            vec!["", "/x"],
            vec!["spi", "//example.org/x"],
            vec!["spiffe", "://example.org/x"],
            vec!["spiffe://exa", "/x"],
            vec!["spiffe://example.org/a", "b/c"],
            vec!["spiffe://example.org/a/", "/c"],
            vec!["spiffe://example.org/.", "x"],
            vec!["spiffe://", "/Upper/x"],
        ] {
            assert_eq!(never_valid(&runs, own), None, "{runs:?}");
        }
        for (runs, why) in [
            (vec!["SPIFFE://example.org/", ""], "does not start with"),
            (vec!["spiffe://Example.org/", ""], "trust domain holds 'E'"),
            (vec!["spiffe://Exa", ""], "trust domain holds 'E'"),
            (vec!["spiffe://other.org/", ""], "is not example.org"),
            (vec!["spiffe://oth", "/x"], "starts with \"oth\""),
            (vec!["spiffe://example.org/", "/<no value>"], "holds '<'"),
            (vec!["", "/x/"], "ends with /"),
            (vec!["spiffe://example.org/a//", "x"], "empty segments"),
            (vec!["spiffe://example.org/", "/../x"], "dot segments"),
            (vec!["spiffe://example.org/x", "/."], "dot segments"),
            (vec!["spiffe:///", "x"], "trust domain is missing"),
            (vec!["spi", "/a b"], "holds ' '"),
        ] {
            assert!(
                never_valid(&runs, own).is_some_and(|e| e.contains(why)),
                "{runs:?}: {:?}",
                never_valid(&runs, own)
            );
        }
    }

    #[test]
    fn the_selectors_of_an_entry_key_are_sorted_and_joined_with_nothing_between() {
        use super::selectors_key;
        assert_eq!(selectors_key(["k:8sns:x"]), selectors_key(["k8s:ns:x"]));
        assert_eq!(selectors_key(["k8s:sa:b", "k8s:ns:a", "none"]), "k8sns:ak8ssa:b");
    }

    #[test]
    fn a_committed_lifetime_is_an_addition_where_the_server_may_issue_longer() {
        use super::Source;
        let object = |ttl: Option<&str>| Source {
            ttls: [ttl.map(str::to_string), None],
            committed: true,
            replaced: false,
            ..Source::bare("o")
        };
        let fresh = object(None);
        // The fresh render leaves the server's default, which the build does not know.
        for ttl in ["10m", "4294967356s", "forever"] {
            assert_eq!(object(Some(ttl)).additions(&fresh), [format!("ttl {ttl}")], "{ttl}");
        }
        // The server's default too, or an entry it refuses: nothing more.
        for ttl in ["0s", "999ms", "4294967296s", "-1h", "2147483648s"] {
            assert!(object(Some(ttl)).additions(&fresh).is_empty(), "{ttl}");
        }
        assert!(object(Some("1h")).additions(&object(Some("4294970896s"))).is_empty(), "both 3600 s");
        assert_eq!(object(Some("2h")).additions(&object(Some("4294970896s"))), ["ttl 2h"]);
    }

    #[test]
    fn folded_powers_keep_the_longer_lifetime_as_written() {
        // The first object's entry stays; another's lifetime replaces its own only when longer.
        let ttls =
            |x509: Option<&str>, jwt: Option<&str>| [x509.map(str::to_string), jwt.map(str::to_string)];
        let merged = |mine: [Option<String>; 2], theirs: [Option<String>; 2]| {
            let mut powers = Powers { ttls: mine, ..Powers::default() };
            powers.merge(&Powers { ttls: theirs, ..Powers::default() });
            powers.ttls
        };
        let (hour, longer) = (ttls(Some("1h"), Some("5m")), ttls(Some("90m"), Some("10m")));
        assert_eq!(merged(hour.clone(), longer.clone()), longer);
        assert_eq!(merged(longer.clone(), hour.clone()), longer);
        assert_eq!(merged(ttls(Some("60m"), None), hour.clone()), ttls(Some("60m"), Some("5m")), "as long");
        assert_eq!(merged(ttls(None, Some("5m")), ttls(Some("1h"), None)), hour);
    }

    #[test]
    fn a_workload_selector_needs_a_type_and_a_value() {
        // entries.go:230-244: a selector that is not type:value gives no entry.
        for selector in ["k8s", "k8s:", ":ns:serving", ":"] {
            assert!(matches!(Judged::of(selector), Judged::Invalid(_)), "{selector}");
        }
        assert!(matches!(Judged::of("k8s:ns:serving"), Judged::Namespace(ns) if ns == "serving"));
        assert!(matches!(Judged::of("unix:uid:0"), Judged::Unknown));
    }

    /// What `selector` answers for a pod of service account `sa` in namespace `serving`,
    /// whose labels are unknown, named `pod_name`, the namespace labelled `namespace_labels`.
    fn judged_in_serving(
        selector: &str,
        pod_name: Option<&str>,
        namespace_labels: Option<&std::collections::BTreeMap<String, String>>,
    ) -> super::Answer {
        let unknown = |_: &str| super::Lookup::Unknown;
        let data = super::Data {
            trust_domain: None,
            namespace: Some("serving"),
            labels: &unknown,
            service_account: Some("sa"),
            pod_name,
            containers: None,
            namespace_labels,
            owner: None,
        };
        Judged::of(selector).holds(&data).unwrap()
    }

    #[test]
    fn a_namespace_label_selector_is_judged_by_the_declared_namespace() {
        use super::Answer;
        use std::collections::BTreeMap;
        fn holds(labels: Option<&BTreeMap<String, String>>, selector: &str) -> Answer {
            judged_in_serving(selector, None, labels)
        }
        let pci: BTreeMap<String, String> = [("compliance".to_string(), "pci".to_string())].into();
        let none: BTreeMap<String, String> = [("compliance".to_string(), "none".to_string())].into();
        let selector = "k8s:ns-label:compliance:pci";
        // Held only by agents that report namespace labels: at best unknown.
        assert_eq!(holds(Some(&pci), selector), Answer::Unknown);
        assert_eq!(holds(Some(&none), selector), Answer::No);
        assert_eq!(holds(Some(&BTreeMap::new()), selector), Answer::No);
        assert_eq!(holds(None, selector), Answer::Unknown, "a namespace the input does not declare");
        assert_eq!(holds(None, "k8s:ns-label:kubernetes.io/metadata.name:other"), Answer::No);
    }

    #[test]
    fn an_unknown_reads_the_template_unless_only_the_cluster_sets_it() {
        use super::cluster_only;
        for action in [
            "{{ .PodMeta.Name }}",
            "{{- .PodMeta.UID -}}",
            r#"{{ index .PodMeta.Labels "batch.kubernetes.io/job-name" }}"#,
            "{{ .PodMeta.Labels.app }}",
        ] {
            assert!(cluster_only(action), "{action}");
        }
        for action in [
            r#"{{ index .PodMeta.Annotations "example.org/role" }}"#,
            "{{ .PodSpec.Hostname }}",
            "{{ .NodeMeta.Name }}",
            r#"{{ index .PodMeta.Labels "a" | printf "%s" }}"#,
            "{{ $x := .PodSpec }}",
        ] {
            assert!(!cluster_only(action), "{action}");
        }
    }

    #[test]
    fn a_pod_name_holds_when_the_input_settles_it_and_a_label_without_value_never() {
        use super::Answer;
        fn holds(selector: &str, pod_name: Option<&str>) -> Answer {
            judged_in_serving(selector, pod_name, None)
        }
        assert_eq!(holds("k8s:pod-name:llama-0", Some("llama-0")), Answer::Yes);
        assert_eq!(holds("k8s:pod-name:llama-0", Some("llama-1")), Answer::No);
        assert_eq!(holds("k8s:pod-name:llama-0", None), Answer::Unknown, "a generated name");
        // `k8s:pod-label:app` without a value: no pod, even one whose labels are unknown.
        assert_eq!(holds("k8s:pod-label:app", None), Answer::No);
        assert_eq!(holds("k8s:pod-label:app:x", None), Answer::Unknown);
    }
}
