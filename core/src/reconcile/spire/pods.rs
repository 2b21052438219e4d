//! The pod templates as the model reads them: each in every namespace it stands or may land
//! in, with the labels its controller adds, indexed by label globally and per namespace so
//! that an object looks only at the templates of its rarest label.

use super::containers::Written;
use super::namespaces::OTHER_NAMESPACE;
use super::template::Data;
use crate::reconcile::cluster::controllers::{self, Owner};
use crate::reconcile::cluster::seen::Seen;
use crate::reconcile::cluster::selector::{Lookup, Selector};
use crate::reconcile::cluster::workload::PodTemplate;
use std::collections::HashMap;

/// A pod template as the model reads it.
pub(super) struct Pod<'a> {
    pub(super) item: usize,
    pub(super) template: usize,
    pub(super) namespace: &'a str,
    /// Its position among the namespaces.
    pub(super) ns: u32,
    pub(super) labels: &'a PodTemplate,
    pub(super) account: &'a str,
    /// Its workload, whose controller adds labels to its pods.
    pub(super) owner: Owner<'a>,
    /// Its position in [`Model::held`]: a template whose item names no namespace stands in
    /// every namespace it may land in, once in each, all held as one.
    pub(super) held: u32,
    /// Whether its item names no namespace, so `namespace` is one it may land in.
    pub(super) unset: bool,
    /// Its item may go unapplied ([`Seen::unapplied`]).
    pub(super) unapplied: bool,
}

impl<'a> Pod<'a> {
    pub(super) fn label(&self, key: &str) -> Lookup<'a> {
        let template = self.labels.label(key);
        let carries = |mark: &str| self.labels.open() || self.labels.label(mark).is_some();
        if let Some(set) = self.owner.label_of(key, template, &carries) {
            return set;
        }
        match template {
            Some(v) => Lookup::Value(v),
            // Its controller may add labels the build does not see.
            None if self.labels.open() => Lookup::Unknown,
            None => Lookup::Absent,
        }
    }

    /// Its containers as written, exact when its controller runs them as written.
    pub(super) fn containers(&self) -> Written<'a> {
        let kept = self.owner.controller.is_some_and(|c| c.containers_as_written);
        let containers = self.labels.containers();
        Written { containers, exact: kept && containers.known() }
    }

    /// What a template evaluates from for its pods; `seen` gives its namespace's declared
    /// labels.
    pub(super) fn data<'d>(
        &self,
        trust_domain: Option<&'d str>,
        labels: &'d dyn Fn(&str) -> Lookup<'d>,
        seen: &'d Seen<'_>,
    ) -> Data<'d>
    where
        'a: 'd,
    {
        Data {
            trust_domain,
            namespace: (self.namespace != OTHER_NAMESPACE).then_some(self.namespace),
            labels,
            service_account: Some(self.account)
                .filter(|a| *a != crate::reconcile::cluster::workload::ANY_ACCOUNT),
            pod_name: self.owner.pod_name,
            containers: Some(self.containers()),
            namespace_labels: seen.namespaces.get(self.namespace),
            owner: Some(self.owner),
        }
    }
}

/// The DNS names SPIRE Controller Manager adds to the entry of an object with
/// `autoPopulateDNSNames` for `pod` (pkg/spireentry/entries.go, `dnsNamesFromEndpoints`): of
/// each Service of its namespace whose selector picks it (or may: a label only the cluster
/// settles), as the endpoints controller lists the pod in the Service's Endpoints, the names
/// `<svc>`, `<svc>.<ns>`, `<svc>.<ns>.svc` and, with the manager's cluster domain, which the
/// build does not know, `<svc>.<ns>.svc.{{ .ClusterDomain }}`; sorted. A Service an applier
/// may leave unapplied gives none here: it is a record of its own (`unjudged::unapplied_services`),
/// so that BASE never surely holds what it may give.
pub(super) fn service_dns_names(seen: &Seen<'_>, pod: &Pod<'_>) -> Vec<String> {
    let namespace = if pod.namespace == OTHER_NAMESPACE { "{{ .PodMeta.Namespace }}" } else { pod.namespace };
    let mut names = Vec::new();
    for service in &seen.services {
        if seen.unapplied.contains(&service.item) {
            continue;
        }
        if service.namespace.as_deref().is_some_and(|ns| ns != pod.namespace) {
            continue;
        }
        let picks = service.selector.iter().all(|(k, v)| match pod.label(k) {
            Lookup::Value(have) => have == v,
            Lookup::Absent => false,
            Lookup::Unknown | Lookup::Present => true,
        });
        if picks {
            let svc = &service.name;
            names.extend([
                svc.clone(),
                format!("{svc}.{namespace}"),
                format!("{svc}.{namespace}.svc"),
                format!("{svc}.{namespace}.svc.{{{{ .ClusterDomain }}}}"),
            ]);
        }
    }
    names.sort();
    names
}

/// The pod template at (item, template) of `seen`.
pub(super) fn pod_at<'a>(seen: &'a Seen<'a>, item: usize, template: usize) -> Option<Pod<'a>> {
    let at = seen.workloads.binary_search_by_key(&item, |(i, _)| *i).ok()?;
    let workload = &seen.workloads[at].1;
    let t = workload.templates().get(template)?;
    let account = seen.accounts.get(&(item, template)).map_or(t.service_account(), String::as_str);
    Some(Pod {
        item,
        template,
        namespace: workload.namespace()?,
        ns: 0,
        labels: t,
        account,
        owner: workload.owner_of(t),
        held: 0,
        unset: false,
        unapplied: seen.unapplied.contains(&item),
    })
}

/// The pod templates, indexed by label globally and per namespace.
pub(super) struct PodIndex<'a> {
    pub(super) pods: Vec<Pod<'a>>,
    /// How many templates the pods stand for.
    pub(super) templates: u32,
    pub(super) ns_of: HashMap<&'a str, u32>,
    pub(super) by_namespace: Vec<Vec<u32>>,
    pub(super) by_label: HashMap<(&'a str, &'a str), Vec<u32>>,
    pub(super) by_namespace_label: HashMap<(u32, &'a str, &'a str), Vec<u32>>,
    /// Templates whose pods may carry labels they do not name, globally and per namespace:
    /// indexed by no label, since any label may hold for them.
    pub(super) open: Vec<u32>,
    pub(super) open_by_namespace: HashMap<u32, Vec<u32>>,
}

/// The templates an object may select: lists of them, each with the position of the object's
/// `matchLabels` label that holds for all of them by the index (`None`: judge every label).
pub(super) type Candidates<'s> = Vec<(&'s [u32], Option<usize>)>;

impl<'a> PodIndex<'a> {
    /// `per_namespace`: whether an object names its namespaces, so that the per-namespace
    /// lists are needed.
    /// `named`: namespaces the objects name (by `namespaceSelector` or a `k8s:ns` selector),
    /// where a template whose item names none may land too.
    pub(super) fn build(seen: &'a Seen<'a>, named: &'a [String], per_namespace: bool) -> PodIndex<'a> {
        let mut index = PodIndex {
            pods: Vec::new(),
            templates: 0,
            ns_of: HashMap::new(),
            by_namespace: Vec::new(),
            by_label: HashMap::new(),
            by_namespace_label: HashMap::new(),
            open: Vec::new(),
            open_by_namespace: HashMap::new(),
        };
        // Where a template whose item names no namespace may land: every namespace of the
        // input, `default` (kubectl without -n), and any other, which no selector names.
        let mut landing: std::collections::BTreeSet<&'a str> =
            seen.workloads.iter().filter_map(|(_, w)| w.namespace()).collect();
        landing.extend(seen.namespaces.keys().map(String::as_str));
        landing.extend(named.iter().map(String::as_str));
        landing.insert("default");
        landing.insert(OTHER_NAMESPACE);
        for (item, workload) in &seen.workloads {
            let (namespaces, unset): (Vec<&'a str>, bool) = match workload.namespace() {
                Some(namespace) => (vec![namespace], false),
                None => (landing.iter().copied().collect(), true),
            };
            for (at, template) in workload.templates().iter().enumerate() {
                let held = index.templates;
                index.templates += 1;
                for &namespace in &namespaces {
                    let ns = index.namespace(namespace);
                    let p = index.pods.len() as u32;
                    if template.open() {
                        index.open.push(p);
                        index.open_by_namespace.entry(ns).or_default().push(p);
                    }
                    for (k, v) in template.labels().filter(|_| !template.open()) {
                        index.by_label.entry((k, v)).or_default().push(p);
                        if per_namespace {
                            index.by_namespace_label.entry((ns, k, v)).or_default().push(p);
                        }
                    }
                    index.by_namespace[ns as usize].push(p);
                    let account =
                        seen.accounts.get(&(*item, at)).map_or(template.service_account(), String::as_str);
                    index.pods.push(Pod {
                        item: *item,
                        template: at,
                        namespace,
                        ns,
                        labels: template,
                        account,
                        owner: workload.owner_of(template),
                        held,
                        unset,
                        unapplied: seen.unapplied.contains(item),
                    });
                }
            }
        }
        index
    }

    /// The position of `namespace`, added when new.
    pub(super) fn namespace(&mut self, namespace: &'a str) -> u32 {
        let next = self.ns_of.len() as u32;
        let ns = *self.ns_of.entry(namespace).or_insert(next);
        if ns == next {
            self.by_namespace.push(Vec::new());
        }
        ns
    }

    /// The pod templates `pods` may select in the namespaces `pinned` names (all when
    /// `None`): those of its rarest `matchLabels` label that the templates can carry (a
    /// controller's label cannot be looked up), with that label's position, and the open
    /// templates there, with none.
    pub(super) fn candidates<'s>(&'s self, pods: &'s Selector, pinned: Option<&[String]>) -> Candidates<'s> {
        let indexed: Vec<(usize, &str, &str)> = pods
            .match_labels
            .iter()
            .enumerate()
            .filter(|(_, (k, _))| !controllers::sets_label(k))
            .map(|(i, (k, v))| (i, k.as_str(), v.as_str()))
            .collect();
        match pinned {
            None => {
                let rarest = indexed
                    .iter()
                    .map(|&(i, k, v)| (i, self.by_label.get(&(k, v)).map_or(&[][..], Vec::as_slice)))
                    .min_by_key(|(_, list)| list.len());
                match rarest {
                    Some((i, list)) => vec![(list, Some(i)), (self.open.as_slice(), None)],
                    None => self.by_namespace.iter().map(|l| (l.as_slice(), None)).collect(),
                }
            }
            Some(names) => {
                // The same label in every namespace, so that it can be taken as holding.
                let namespaces: Vec<u32> =
                    names.iter().filter_map(|n| self.ns_of.get(n.as_str()).copied()).collect();
                let lists: Vec<Vec<&'s [u32]>> = namespaces
                    .iter()
                    .map(|&ns| {
                        indexed
                            .iter()
                            .map(|&(_, k, v)| {
                                self.by_namespace_label.get(&(ns, k, v)).map_or(&[][..], Vec::as_slice)
                            })
                            .collect()
                    })
                    .collect();
                let total = |j: usize| lists.iter().map(|l| l[j].len()).sum::<usize>();
                match (0..indexed.len()).min_by_key(|&j| total(j)) {
                    Some(j) => {
                        let open = namespaces.iter().filter_map(|ns| self.open_by_namespace.get(ns));
                        let by_label = lists.iter().map(|l| (l[j], Some(indexed[j].0)));
                        by_label.chain(open.map(|l| (l.as_slice(), None))).collect()
                    }
                    None => namespaces
                        .iter()
                        .map(|&ns| (self.by_namespace[ns as usize].as_slice(), None))
                        .collect(),
                }
            }
        }
    }
}
