//! The pieces of the policy's CEL, made from the controllers' table: string literals, where
//! a pod template stands, the identity a template's pods hold, how a controller names what it
//! makes, and which identities an object of a name may hold ([`may_hold`]), following its
//! name up to the objects the package declares. Every expression only reads the request and
//! the namespace's parameters (`params.data`, see `params.rs`).

use super::controllers::{Acts, CONTROLLERS, HASH_LETTERS, Kind, Naming};
use crate::api::cluster_spiffe_id::VARIANT_LABEL;

/// The parameter key prefix of an identity: `identity.<account>_<variant>`.
pub const IDENTITY_KEY: &str = "identity.";

/// `text` as a CEL string literal.
pub fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// The pod template at the dotted `path` of `root` (empty: `root` itself), or an empty map
/// when a field on the way is missing.
pub fn template_at(root: &str, path: &str) -> String {
    if path.is_empty() {
        return root.to_string();
    }
    let mut prefixes = Vec::new();
    let mut at = root.to_string();
    for part in path.split('.') {
        at = format!("{at}.{part}");
        prefixes.push(format!("has({at})"));
    }
    format!("{} ? {at} : {{}}", prefixes.join(" && "))
}

/// A template's labels (`{}` when it has none).
pub fn labels_of(template: &str) -> String {
    format!("has({template}.metadata) && has({template}.metadata.labels) ? {template}.metadata.labels : {{}}")
}

/// The service account a template's pods run as: `serviceAccountName`, else the deprecated
/// `serviceAccount`, else `default`.
pub fn account_of(template: &str) -> String {
    let field =
        |f: &str| format!("has({template}.spec) && has({template}.spec.{f}) && {template}.spec.{f} != ''");
    format!(
        "{} ? {template}.spec.serviceAccountName : {} ? {template}.spec.serviceAccount : 'default'",
        field("serviceAccountName"),
        field("serviceAccount")
    )
}

/// The parameter entry of the identity a pod of these labels and account would hold by its
/// variant: its SPIFFE ID and the pool's labels, one a line; `''` when none.
pub fn entry_of(labels: &str, account: &str) -> String {
    let variant = quote(VARIANT_LABEL);
    format!(
        "{variant} in {labels} ? params.data[?({key} + {account} + '_' + {labels}[{variant}])].orValue('') : ''",
        key = quote(IDENTITY_KEY)
    )
}

/// The SPIFFE ID of an entry when the labels hold every pool label it lists; else `''`.
pub fn spiffe_id_of(entry: &str, labels: &str) -> String {
    format!(
        "{entry} != '' && {entry}.split('\\n').all(line, line.startsWith('spiffe://') || \
         (line.split('=')[0] in {labels} && {labels}[line.split('=')[0]] == line.split('=')[1])) ? \
         {entry}.split('\\n')[0] : ''"
    )
}

/// The SPIFFE IDs the package declares for its object of `kind` named `name`.
pub fn declared(kind: &Kind, name: &str) -> String {
    format!("params.data[?({} + {name})].orValue('').split('\\n')", quote(&format!("{}.", kind.kind)))
}

/// Whether an object named `name` is named as `naming` names what its owner `owner` makes.
pub fn named_after(naming: Naming, name: &str, owner: &str) -> String {
    let tail = |pattern: &str| {
        format!(
            "{name}.startsWith({owner} + '-') && {name}.substring({owner}.size() + 1).matches('{pattern}')"
        )
    };
    match naming {
        Naming::Hash => tail(&format!("^[{HASH_LETTERS}]+$")),
        Naming::Number => tail("^[0-9]+$"),
        Naming::Generated => format!("{name}.startsWith({owner} + '-')"),
        Naming::Suffix { suffixes: [""], .. } => format!("{name} == {owner}"),
        Naming::Suffix { suffixes, .. } => {
            let names: Vec<String> = suffixes.iter().map(|s| format!("{owner} + {}", quote(s))).collect();
            format!("[{}].exists(n, n == {name})", names.join(", "))
        }
    }
}

/// The name of the request's controller owner, and the variables that cut it at its last
/// `-`: what the policy follows up from.
pub const OWNER_NAME: &str = "variables.ownerName";
const OWNER_STEM: &str = "variables.ownerStem";
const OWNER_TAIL: &str = "variables.ownerTail";

/// `name` before and after its last `-` (`''` and `name` when it has none).
pub fn stem_of(name: &str) -> String {
    format!("{name}.lastIndexOf('-') > 0 ? {name}.substring(0, {name}.lastIndexOf('-')) : ''")
}

pub fn tail_of(name: &str) -> String {
    format!("{name}.substring({name}.lastIndexOf('-') + 1)")
}

/// The owners' names an object's name gives under `naming`, each with the condition the name
/// meets for it; none when the name does not tell (`Generated`).
fn owners_named(naming: Naming, name: &str) -> Vec<(String, String)> {
    let (stem, tail) = match name {
        OWNER_NAME => (OWNER_STEM.to_string(), OWNER_TAIL.to_string()),
        _ => (format!("({})", stem_of(name)), tail_of(name)),
    };
    let cut = |pattern: &str| vec![(format!("{tail}.matches('{pattern}')"), stem.clone())];
    match naming {
        Naming::Hash => cut(&format!("^[{HASH_LETTERS}]+$")),
        Naming::Number => cut("^[0-9]+$"),
        Naming::Generated => Vec::new(),
        Naming::Suffix { suffixes, .. } => suffixes
            .iter()
            .map(|s| match s.len() {
                0 => ("true".to_string(), name.to_string()),
                n => (
                    format!("{name}.size() > {n} && {name}.endsWith({})", quote(s)),
                    format!("{name}.substring(0, {name}.size() - {n})"),
                ),
            })
            .collect(),
    }
}

/// The SPIFFE IDs an object of `kind` named `name` may hold: those the package declares for
/// its object of that kind and name, and, for each controller that makes that kind under a
/// name that tells its owner, those its owner may hold. Each controller is followed once on a
/// way up, which ends every way (a LeaderWorkerSet's workers are owned by a pod its leaders'
/// StatefulSet makes).
pub fn may_hold(kind: &Kind, name: &str) -> String {
    may_hold_on(kind, name, &mut Vec::new()).join(" +\n")
}

fn may_hold_on(kind: &Kind, name: &str, path: &mut Vec<usize>) -> Vec<String> {
    let mut terms = vec![declared(kind, name)];
    for (i, c) in CONTROLLERS.iter().enumerate() {
        if c.acts != Acts::Makes || c.makes != kind || path.contains(&i) {
            continue;
        }
        for (condition, owner) in owners_named(c.naming, name) {
            path.push(i);
            let owners = may_hold_on(c.owner, &owner, path);
            path.pop();
            match condition.as_str() {
                "true" => terms.extend(owners),
                _ => terms.push(format!("({condition} ? {} : [])", owners.join(" + "))),
            }
        }
    }
    terms
}

#[cfg(test)]
mod tests {
    use super::super::controllers::{DEPLOYMENT, JOB, POD, STATEFUL_SET};
    use super::*;

    #[test]
    fn literals_escape_what_cel_reads_as_syntax() {
        assert_eq!(quote("system:serviceaccount:a:b"), "'system:serviceaccount:a:b'");
        assert_eq!(quote("it's \\ here\n"), "'it\\'s \\\\ here\\n'");
        assert_eq!(quote("\u{7}"), "'\\u0007'");
    }

    #[test]
    fn a_template_deep_in_an_object_is_guarded_by_has() {
        assert_eq!(template_at("object", ""), "object");
        assert_eq!(
            template_at("object", "spec.jobTemplate.spec.template"),
            "has(object.spec) && has(object.spec.jobTemplate) && has(object.spec.jobTemplate.spec) && \
             has(object.spec.jobTemplate.spec.template) ? object.spec.jobTemplate.spec.template : {}"
        );
    }

    #[test]
    fn names_tell_their_owner_as_each_controller_names_them() {
        assert_eq!(named_after(Naming::Generated, "n", "o"), "n.startsWith(o + '-')");
        assert_eq!(
            named_after(Naming::Suffix { suffixes: &["-a", "-b"], longest: None }, "n", "o"),
            "[o + '-a', o + '-b'].exists(n, n == n)"
        );
        assert_eq!(named_after(Naming::Suffix { suffixes: &[""], longest: None }, "n", "o"), "n == o");
        assert!(named_after(Naming::Number, "n", "o").ends_with(".matches('^[0-9]+$')"));
    }

    #[test]
    fn what_an_owner_may_hold_follows_its_name_up_to_the_package() {
        // A Job: the package's, or one a CronJob of the package makes under `<cronjob>-<minutes>`.
        let job = may_hold(&JOB, OWNER_NAME);
        assert_eq!(
            job,
            "params.data[?('Job.' + variables.ownerName)].orValue('').split('\\n') +\n\
             (variables.ownerTail.matches('^[0-9]+$') ? \
             params.data[?('CronJob.' + variables.ownerStem)].orValue('').split('\\n') : [])"
        );
        // A Deployment: the package's, or KServe's of an LLMInferenceService or InferenceService.
        let deployment = may_hold(&DEPLOYMENT, OWNER_NAME);
        for key in ["'Deployment.'", "'LLMInferenceService.'", "'InferenceService.'", "'-kserve-prefill'"] {
            assert!(deployment.contains(key), "{key}: {deployment}");
        }
        // A pod's name tells its owner only for a StatefulSet's; the way up through a
        // LeaderWorkerSet's workers ends.
        let pod = may_hold(&POD, OWNER_NAME);
        assert!(
            pod.contains("'StatefulSet.' + variables.ownerStem") && pod.contains("'LeaderWorkerSet.'"),
            "{pod}"
        );
        assert!(!pod.contains("'ReplicaSet.'"), "a ReplicaSet's pod's name does not tell it: {pod}");
        let set = may_hold(&STATEFUL_SET, OWNER_NAME);
        assert_eq!(set.matches("'LeaderWorkerSet.'").count(), 2, "leaders' and workers' sets: {set}");
        // Another name than the owner's is cut where it stands.
        let nested = may_hold(&JOB, "n");
        assert!(nested.contains("n.substring(n.lastIndexOf('-') + 1).matches('^[0-9]+$')"), "{nested}");
    }
}
