//! The guard's ValidatingAdmissionPolicy: one for the whole package, its facts in each
//! namespace's parameters (`params.rs`). For a request on a pod or a workload it works out
//! which identities the object's pods would hold, then admits the request only when those
//! identities are the package's for that object: declared for its kind and name, or made by
//! a trusted controller (by user name, controller owner reference and name) for an owner
//! that may hold them. A pod update keeps the identity the pod was admitted with and the code
//! it runs. The rule, in words: docs/reference.md#admission-guard.

use super::cel::{
    OWNER_NAME, account_of, entry_of, labels_of, may_hold, named_after, quote, spiffe_id_of, stem_of,
    tail_of, template_at,
};
use super::controllers::{Acts, CONTROLLERS, KINDS, POD};
use crate::api::admission::{
    API_VERSION, GuardObject, MatchConstraints, Metadata, POLICY_KIND, ParamKind, Policy, PolicySpec,
    ResourceRule, Validation, Variable,
};
use std::collections::BTreeMap;

/// The policy of the guard `name`; `users` gives each controller's user name.
pub fn policy(name: &str, users: &BTreeMap<&str, String>) -> GuardObject {
    GuardObject::Policy(Box::new(Policy {
        api_version: API_VERSION,
        kind: POLICY_KIND,
        metadata: Metadata::of(name.to_string(), None, name, None),
        spec: PolicySpec {
            failure_policy: "Fail",
            param_kind: ParamKind { api_version: "v1", kind: "ConfigMap" },
            match_constraints: MatchConstraints { resource_rules: resource_rules() },
            variables: variables(users),
            validations: validations(),
        },
    }))
}

/// Creates and updates of every kind the guard judges, and a pod's status and ephemeral
/// containers, through which its labels and code change too.
fn resource_rules() -> Vec<ResourceRule> {
    let mut by_group: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for kind in KINDS.iter().filter(|k| !k.templates.is_empty()) {
        let resources = by_group.entry(kind.group).or_default();
        resources.push(kind.resource.to_string());
        if *kind == &POD {
            resources.extend(["pods/status".to_string(), "pods/ephemeralcontainers".to_string()]);
        }
    }
    by_group
        .into_iter()
        .map(|(group, resources)| ResourceRule {
            api_groups: vec![group],
            api_versions: vec!["*"],
            operations: vec!["CREATE", "UPDATE"],
            resources,
        })
        .collect()
}

fn variable(name: &'static str, expression: impl Into<String>) -> Variable {
    Variable { name, expression: expression.into() }
}

/// `variables.kind == 'A' ? a : variables.kind == 'B' ? b : ... : otherwise`, one case a line.
fn by_kind(cases: Vec<(&str, String)>, otherwise: &str) -> String {
    let mut out: Vec<String> = cases
        .into_iter()
        .map(|(kind, value)| format!("variables.kind == {} ? {value} :", quote(kind)))
        .collect();
    out.push(otherwise.to_string());
    out.join("\n")
}

/// The policy's variables, in the order each is read.
fn variables(users: &BTreeMap<&str, String>) -> Vec<Variable> {
    let template = |slot: usize| {
        let cases = KINDS
            .iter()
            .filter_map(|k| Some((k.kind, (*k.templates.get(slot)?).to_string())))
            .map(|(kind, path)| (kind, format!("({})", template_at("object", &path))))
            .collect();
        by_kind(cases, "{}")
    };
    vec![
        variable("kind", "request.kind.kind"),
        // The object's pod templates: a Pod itself, a workload's template (a CronJob's Jobs'),
        // a LeaderWorkerSet's workers' and leaders'.
        variable("pod", template(0)),
        variable("labels", labels_of("variables.pod")),
        variable("account", account_of("variables.pod")),
        variable("entry", entry_of("variables.labels", "variables.account")),
        variable("spiffeID", spiffe_id_of("variables.entry", "variables.labels")),
        variable("pod2", template(1)),
        variable("labels2", labels_of("variables.pod2")),
        variable("account2", account_of("variables.pod2")),
        variable("entry2", entry_of("variables.labels2", "variables.account2")),
        variable("spiffeID2", spiffe_id_of("variables.entry2", "variables.labels2")),
        variable("ids", "[variables.spiffeID, variables.spiffeID2].filter(id, id != '')"),
        variable("declared", declared_here()),
        variable("user", "request.userInfo.username"),
        variable(
            "owner",
            "has(object.metadata.ownerReferences) ? \
             object.metadata.ownerReferences.filter(r, has(r.controller) && r.controller) : []",
        ),
        variable(
            "ownerKind",
            "variables.owner.size() == 1 ? (variables.owner[0].apiVersion.contains('/') ? \
             variables.owner[0].apiVersion.split('/')[0] : '') + '/' + variables.owner[0].kind : ''",
        ),
        variable("ownerName", "variables.owner.size() == 1 ? variables.owner[0].name : ''"),
        variable("ownerStem", stem_of("variables.ownerName")),
        variable("ownerTail", tail_of("variables.ownerName")),
        variable("made", by_controller(Acts::Makes, users)),
        variable("ownerIDs", owner_ids()),
        // A pod's update: its labels (also through pods/status) and its code.
        variable("podUpdate", "variables.kind == 'Pod' && request.operation == 'UPDATE'"),
        variable(
            "oldLabels",
            "variables.podUpdate && has(oldObject.metadata.labels) ? oldObject.metadata.labels : {}",
        ),
        variable("oldEntry", entry_of("variables.oldLabels", "variables.account")),
        variable("oldSpiffeID", spiffe_id_of("variables.oldEntry", "variables.oldLabels")),
        variable("relabeled", by_controller(Acts::Relabels, users)),
        variable("code", format!("variables.kind == 'Pod' ? {} : []", code_of("object"))),
        variable("oldCode", format!("variables.podUpdate ? {} : []", code_of("oldObject"))),
    ]
}

/// What the package declares for the object: the SPIFFE IDs listed under its kind and name.
fn declared_here() -> String {
    "params.data[?(variables.kind + '.' + object.metadata.name)].orValue('').split('\\n')".to_string()
}

/// Whether the request comes from a controller that `acts` so on the object, by its user
/// name, the object's controller owner reference and its name: one controller a line.
fn by_controller(acts: Acts, users: &BTreeMap<&str, String>) -> String {
    let lines: Vec<String> = CONTROLLERS
        .iter()
        .filter(|c| c.acts == acts)
        .map(|c| {
            let named = match acts {
                Acts::Makes => named_after(c.naming, "object.metadata.name", "variables.ownerName"),
                Acts::Relabels => "request.operation == 'UPDATE'".to_string(),
            };
            format!(
                "(variables.kind == {} && variables.user == {} && variables.ownerKind == {} && {named})",
                quote(c.makes.kind),
                quote(&users[c.key]),
                quote(&c.owner.group_kind())
            )
        })
        .collect();
    if lines.is_empty() { "false".to_string() } else { lines.join(" ||\n") }
}

/// The SPIFFE IDs the object's controller owner may hold, for each kind that owns what a
/// trusted controller makes.
fn owner_ids() -> String {
    let mut owners: Vec<&str> = Vec::new();
    let mut cases = Vec::new();
    for c in &CONTROLLERS {
        let group_kind = c.owner.group_kind();
        if owners.contains(&c.owner.kind) {
            continue;
        }
        owners.push(c.owner.kind);
        cases.push(format!(
            "variables.ownerKind == {} ? (\n{}) :",
            quote(&group_kind),
            may_hold(c.owner, OWNER_NAME)
        ));
    }
    cases.push("[]".to_string());
    cases.join("\n")
}

/// The images a pod runs, by container: its containers', init containers' and ephemeral
/// containers'.
fn code_of(pod: &str) -> String {
    let images = |field: &str| {
        format!("(has({pod}.spec.{field}) ? {pod}.spec.{field}.map(c, c.name + '=' + c.image) : [])")
    };
    format!("{} + {} + {}", images("containers"), images("initContainers"), images("ephemeralContainers"))
}

/// What the policy holds the request to.
fn validations() -> Vec<Validation> {
    vec![
        Validation {
            expression: "variables.podUpdate ||\n\
                         variables.ids.all(id, id in variables.declared) ||\n\
                         (variables.made && variables.ids.all(id, id in variables.ownerIDs))"
                .to_string(),
            message_expression: "variables.kind + ' ' + object.metadata.name + ' would give its pods ' + \
                                 variables.ids.join(' and ') + ', which only the workloads the package declares \
                                 for that identity, and what their controllers make of them, may hold (parameters ' + \
                                 params.metadata.namespace + '/' + params.metadata.name + ')'"
                .to_string(),
            reason: "Forbidden",
        },
        Validation {
            expression: "!variables.podUpdate || variables.spiffeID == '' ||\n\
                         variables.spiffeID == variables.oldSpiffeID ||\n\
                         (variables.relabeled && variables.spiffeID in variables.ownerIDs)"
                .to_string(),
            message_expression: "'Pod ' + object.metadata.name + ': this update would make it hold ' + \
                                 variables.spiffeID + (variables.oldSpiffeID == '' ? ', which it does not hold' : \
                                 ' instead of ' + variables.oldSpiffeID) + \
                                 ': a pod keeps the identity it was admitted with'"
                .to_string(),
            reason: "Forbidden",
        },
        Validation {
            expression: "!variables.podUpdate || (variables.spiffeID == '' && variables.oldSpiffeID == '') ||\n\
                         variables.code == variables.oldCode"
                .to_string(),
            message_expression: "'Pod ' + object.metadata.name + ' holds ' + \
                                 (variables.oldSpiffeID != '' ? variables.oldSpiffeID : variables.spiffeID) + \
                                 ': an update may not change the images it runs or add an ephemeral container, \
                                 which would run code nobody reviewed with its identity'"
                .to_string(),
            reason: "Forbidden",
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(users: &BTreeMap<&str, String>) -> PolicySpec {
        let GuardObject::Policy(p) = policy("g", users) else { panic!("a policy") };
        p.spec
    }

    fn defaults() -> BTreeMap<&'static str, String> {
        CONTROLLERS.iter().map(|c| (c.key, c.user.to_string())).collect()
    }

    fn expression<'s>(spec: &'s PolicySpec, name: &str) -> &'s str {
        &spec.variables.iter().find(|v| v.name == name).expect("the variable").expression
    }

    #[test]
    fn it_judges_pods_their_status_and_ephemeral_containers_and_every_kind_with_templates() {
        let rules = resource_rules();
        let resources: Vec<(&str, &str)> = rules
            .iter()
            .flat_map(|r| r.resources.iter().map(move |res| (r.api_groups[0], res.as_str())))
            .collect();
        for judged in [
            ("", "pods"),
            ("", "pods/status"),
            ("", "pods/ephemeralcontainers"),
            ("apps", "replicasets"),
            ("batch", "cronjobs"),
            ("leaderworkerset.x-k8s.io", "leaderworkersets"),
            ("argoproj.io", "rollouts"),
        ] {
            assert!(resources.contains(&judged), "{judged:?}: {resources:?}");
        }
        // KServe's services are judged by what KServe makes of them, never themselves.
        assert!(!resources.iter().any(|(g, _)| *g == "serving.kserve.io"), "{resources:?}");
        assert!(rules.iter().all(|r| r.operations == ["CREATE", "UPDATE"]));
    }

    #[test]
    fn each_controller_is_trusted_under_its_user_name_for_its_owner_kind() {
        let s = spec(&defaults());
        let made = expression(&s, "made");
        let makes = CONTROLLERS.iter().filter(|c| c.acts == Acts::Makes).count();
        assert_eq!(made.lines().count(), makes);
        assert!(made.contains(
            "variables.kind == 'Pod' && variables.user == 'system:serviceaccount:kube-system:job-controller' && \
             variables.ownerKind == 'batch/Job'"
        ));
        assert!(expression(&s, "relabeled").contains("'system:serviceaccount:argo-rollouts:argo-rollouts'"));
        // A user name given replaces the default, quoted as a CEL string.
        let mut users = defaults();
        users.insert("replicaset", "it's-kcm".to_string());
        let s = spec(&users);
        let made = expression(&s, "made");
        assert!(made.contains("variables.user == 'it\\'s-kcm'"), "{made}");
        assert!(!made.contains("replicaset-controller"), "{made}");
    }

    #[test]
    fn the_policy_fails_closed_and_takes_a_configmap() {
        let s = spec(&defaults());
        assert_eq!(s.failure_policy, "Fail");
        assert_eq!((s.param_kind.api_version, s.param_kind.kind), ("v1", "ConfigMap"));
        // Every variable a validation reads is declared before it.
        let names: Vec<&str> = s.variables.iter().map(|v| v.name).collect();
        for (i, v) in s.variables.iter().enumerate() {
            for used in v.expression.split("variables.").skip(1) {
                let name: String = used.chars().take_while(char::is_ascii_alphanumeric).collect();
                assert!(names[..i].contains(&name.as_str()), "{} reads {name} before it is made", v.name);
            }
        }
        assert_eq!(s.validations.len(), 3);
    }
}
