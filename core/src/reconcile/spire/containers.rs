//! SPIRE's container and image selectors, judged by a pod template's containers as written.
//! SPIRE's Kubernetes workload attestor (spiffe/spire
//! `pkg/agent/plugin/workloadattestor/k8s/k8s.go`) reports, of the container that calls it
//! (`getSelectorValuesFromWorkloadContainerStatus`, a container or an init container:
//! `lookUpContainerInPod`), `container-name:<name>` and `container-image:<image>` for both its
//! status's `image` and `imageID`; and of the pod (`getSelectorValuesFromPodInfo`)
//! `pod-image:` and `pod-init-image:` for each container's and init container's `image` and
//! `imageID`, and `pod-image-count:` / `pod-init-image-count:`, how many there are. An entry
//! holds for a container only when all its selectors are among those reported, so every
//! container-level selector of an entry must hold for one and the same container.
//!
//! A name and a count are what the template says. An image is the kubelet's: the container
//! runtime's name for the image it pulled (`docker.io/library/busybox:latest` for `busybox`,
//! possibly another tag of the same image) and its digest. So an image selector holds for
//! sure only when it is the image as written and that is already in the runtime's full form
//! (`registry/path:tag`, no digest); it is unknown when it names the image's repository
//! (another spelling, tag or digest of it); it holds for no container whose image is of
//! another repository. A template whose controller adds or renames containers
//! ([`crate::reconcile::cluster::controllers::Controller::containers_as_written`]) or whose
//! containers the build does not see leaves every such selector unknown.

use crate::reconcile::cluster::selector::Answer;
use crate::reconcile::cluster::workload::Containers;

/// A pod template's containers as the model reads them.
#[derive(Debug, Clone, Copy)]
pub struct Written<'a> {
    pub containers: &'a Containers,
    /// Whether its pods run exactly them, as written: its controller keeps them and the
    /// build sees them.
    pub exact: bool,
}

/// A container or image selector, by its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// `container-name`: of the calling container.
    Name(String),
    /// `container-image`: of the calling container.
    Image(String),
    /// `pod-image` (`init`: `pod-init-image`): of any container of the pod.
    PodImage { init: bool, image: String },
    /// `pod-image-count` (`init`: `pod-init-image-count`).
    Count { init: bool, count: String },
}

impl Selector {
    /// The selector of SPIRE's `k8s` type `kind` with `value`, when it is one of these.
    pub fn of(kind: &str, value: &str) -> Option<Selector> {
        let value = value.to_string();
        Some(match kind {
            "container-name" => Selector::Name(value),
            "container-image" => Selector::Image(value),
            "pod-image" => Selector::PodImage { init: false, image: value },
            "pod-init-image" => Selector::PodImage { init: true, image: value },
            "pod-image-count" => Selector::Count { init: false, count: value },
            "pod-init-image-count" => Selector::Count { init: true, count: value },
            _ => return None,
        })
    }

    /// Whether it is reported for the calling container rather than for the pod.
    fn of_container(&self) -> bool {
        matches!(self, Selector::Name(_) | Selector::Image(_))
    }
}

/// Whether `selectors`, all of one entry, hold together for a container of the pods of
/// `written` (`None`: containers the model does not know), and the containers as written
/// (`<name>: <image>`, init ones marked) an unknown answer hangs on: another of them may
/// change it.
pub fn hold(selectors: &[Selector], written: Option<Written<'_>>) -> (Answer, Vec<String>) {
    let Some(written) = written.filter(|w| w.containers.known()) else {
        return (if selectors.is_empty() { Answer::Yes } else { Answer::Unknown }, Vec::new());
    };
    if selectors.is_empty() {
        return (Answer::Yes, Vec::new());
    }
    let mut hangs_on = Vec::new();
    let mut note = |(name, image, init): (&str, &str, bool)| {
        let fact = format!("{}{name}: {image}", if init { "init container " } else { "container " });
        if !hangs_on.contains(&fact) {
            hangs_on.push(fact);
        }
    };
    if !written.exact {
        written.containers.iter().for_each(&mut note);
        return (Answer::Unknown, hangs_on);
    }
    let mut answer = Answer::Yes;
    for selector in selectors.iter().filter(|s| !s.of_container()) {
        let holds = match selector {
            Selector::Count { init, count } => yes(*count == written.containers.count(*init).to_string()),
            Selector::PodImage { init, image } => {
                let mine = written.containers.iter().filter(|c| c.2 == *init);
                any(mine.map(|c| (image_holds(image, c.1), c)), &mut note)
            }
            Selector::Name(_) | Selector::Image(_) => Answer::Yes,
        };
        answer = and(answer, holds);
    }
    let of_container: Vec<&Selector> = selectors.iter().filter(|s| s.of_container()).collect();
    if !of_container.is_empty() {
        let each = written.containers.iter().map(|c| {
            let holds = of_container.iter().fold(Answer::Yes, |acc, s| {
                and(
                    acc,
                    match s {
                        Selector::Name(name) => yes(name == c.0),
                        Selector::Image(image) => image_holds(image, c.1),
                        _ => Answer::Yes,
                    },
                )
            });
            (holds, c)
        });
        answer = and(answer, any(each, &mut note));
    }
    if answer != Answer::Unknown {
        hangs_on.clear();
    }
    (answer, hangs_on)
}

/// Whether a selector's image is one the kubelet may report for a container whose image is
/// written `written` (its status's `image` or `imageID`).
pub fn image_holds(selector: &str, written: &str) -> Answer {
    // An image left out of a workload's template is set by something else (Kubernetes
    // allows it there for higher-level configuration to fill in).
    if written.is_empty() {
        return Answer::Unknown;
    }
    let (mine, theirs) = (Reference::of(written), Reference::of(selector));
    if selector == written && mine.is_full(written) {
        return Answer::Yes;
    }
    if mine.repository == theirs.repository { Answer::Unknown } else { Answer::No }
}

/// An image reference as Docker's `ParseNormalizedNamed` reads a familiar one (distribution
/// `reference/normalize.go`, `splitDockerDomain`): a first component without `.` or `:` that
/// is not `localhost` is a path on `docker.io`, where a one-component path is under
/// `library/`; `index.docker.io` is `docker.io`.
#[derive(Debug, PartialEq, Eq)]
struct Reference<'a> {
    repository: String,
    tag: Option<&'a str>,
    digest: Option<&'a str>,
}

impl<'a> Reference<'a> {
    fn of(image: &'a str) -> Reference<'a> {
        let (name, digest) = match image.split_once('@') {
            Some((name, digest)) => (name, Some(digest)),
            None => (image, None),
        };
        let last = name.rfind('/').map_or(0, |i| i + 1);
        let (name, tag) = match name[last..].rfind(':') {
            Some(i) => (&name[..last + i], Some(&name[last + i + 1..])),
            None => (name, None),
        };
        let (domain, path) = match name.split_once('/') {
            Some((first, rest)) if first.contains(['.', ':']) || first == "localhost" => (first, rest),
            _ => ("docker.io", name),
        };
        let domain = if domain == "index.docker.io" { "docker.io" } else { domain };
        let path = if domain == "docker.io" && !path.contains('/') {
            format!("library/{path}")
        } else {
            path.to_string()
        };
        Reference { repository: format!("{domain}/{path}"), tag, digest }
    }

    /// Whether `image`, read as this, is already in the runtime's full form: its repository
    /// and tag as written, no digest.
    fn is_full(&self, image: &str) -> bool {
        self.digest.is_none() && self.tag.is_some_and(|tag| image == format!("{}:{tag}", self.repository))
    }
}

fn yes(b: bool) -> Answer {
    if b { Answer::Yes } else { Answer::No }
}

fn and(a: Answer, b: Answer) -> Answer {
    match (a, b) {
        (Answer::No, _) | (_, Answer::No) => Answer::No,
        (Answer::Unknown, _) | (_, Answer::Unknown) => Answer::Unknown,
        _ => Answer::Yes,
    }
}

/// Whether any container's answer holds; each that is unknown is noted.
fn any<'c>(
    answers: impl Iterator<Item = (Answer, (&'c str, &'c str, bool))>,
    note: &mut impl FnMut((&'c str, &'c str, bool)),
) -> Answer {
    let mut out = Answer::No;
    for (answer, container) in answers {
        match answer {
            Answer::Yes => out = Answer::Yes,
            Answer::Unknown => {
                note(container);
                if out == Answer::No {
                    out = Answer::Unknown;
                }
            }
            Answer::No => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_image_holds_as_written_only_in_the_runtimes_full_form() {
        // distribution reference/normalize.go: docker.io, library/, index.docker.io.
        let repo = |image| Reference::of(image).repository;
        assert_eq!(repo("busybox"), "docker.io/library/busybox");
        assert_eq!(repo("index.docker.io/vllm/vllm-openai:v0.6.0"), "docker.io/vllm/vllm-openai");
        assert_eq!(repo("localhost/x:1"), "localhost/x");
        assert_eq!(repo("registry:5000/team/x@sha256:ab"), "registry:5000/team/x");
        assert_eq!(
            image_holds("docker.io/library/busybox:1.36", "docker.io/library/busybox:1.36"),
            Answer::Yes
        );
        // As written, but the kubelet reports the runtime's full name.
        assert_eq!(image_holds("busybox", "busybox"), Answer::Unknown);
        assert_eq!(image_holds("docker.io/library/busybox:latest", "busybox"), Answer::Unknown);
        // Another tag or the digest of the same repository: the runtime may name it so.
        assert_eq!(
            image_holds("docker.io/library/busybox:1.35", "docker.io/library/busybox:1.36"),
            Answer::Unknown
        );
        assert_eq!(image_holds("docker.io/library/busybox@sha256:ab", "busybox:1.36"), Answer::Unknown);
        assert_eq!(image_holds("ghcr.io/org/admin:1", "busybox"), Answer::No);
        // An image a template leaves out is filled in by something else.
        assert_eq!(image_holds("ghcr.io/org/admin:1", ""), Answer::Unknown);
    }
}
