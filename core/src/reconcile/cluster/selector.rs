//! What another ClusterSPIFFEID in the input selects: its `podSelector` and
//! `namespaceSelector`, Kubernetes label selectors (`matchLabels` and `matchExpressions`
//! with `In`, `NotIn`, `Exists`, `DoesNotExist`). An absent or empty selector selects
//! everything, as SPIRE Controller Manager reads it; one that apimachinery's
//! `LabelSelectorAsSelector` refuses makes the manager skip the object ([`Selector::problem`]).

use crate::api::names;
use crate::api::value::Value;

/// Whether a selector selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Yes,
    No,
    /// It hangs on labels the input does not hold (a namespace without its Namespace object).
    Unknown,
}

/// One label of an object, as far as the input says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup<'a> {
    Value(&'a str),
    Absent,
    /// Only the cluster knows it (a label a controller adds, a Namespace the input lacks).
    Unknown,
    /// Set, to a value only the cluster knows (a hash, a UID a controller puts on its pods):
    /// `Exists` holds, `DoesNotExist` does not, a value is unknown.
    Present,
}

/// An object's labels, looked up by key.
pub type Labels<'l, 'a> = &'l dyn Fn(&str) -> Lookup<'a>;

/// A label selector, as read from a ClusterSPIFFEID.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Selector {
    pub match_labels: Vec<(String, String)>,
    pub expressions: Vec<Expression>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Expression {
    pub key: String,
    pub operator: String,
    pub values: Vec<String>,
}

impl Selector {
    /// The selector at `value` (a label selector mapping) of a custom resource; `None` when
    /// it cannot be read, so nothing can be said of what it selects. A null label is none:
    /// the API server drops it from a custom resource (`PruneNonNullableNullsWithoutDefaults`),
    /// as from a pool's selector.
    pub fn read(value: Option<&Value>) -> Option<Selector> {
        Self::read_with(value, false)
    }

    /// [`Selector::read`] for a kind Kubernetes builds in (a Deployment's, a Job's), whose
    /// selector the API server decodes into Go strings: a null label value or requirement
    /// value is the empty string there (encoding/json leaves a string it meets null for at
    /// its zero value), no label dropped.
    pub fn read_built_in(value: Option<&Value>) -> Option<Selector> {
        Self::read_with(value, true)
    }

    fn read_with(value: Option<&Value>, null_is_empty: bool) -> Option<Selector> {
        let Some(value) = value.filter(|v| !v.is_null()) else { return Some(Selector::default()) };
        let map = value.as_object()?;
        let text = |v: &Value| match v {
            Value::Null if null_is_empty => Some(String::new()),
            v => v.as_str().map(str::to_string),
        };
        let mut selector = Selector::default();
        if let Some(labels) = map.get("matchLabels").filter(|v| !v.is_null()) {
            for (k, v) in labels.as_object()?.iter().filter(|(_, v)| null_is_empty || !v.is_null()) {
                selector.match_labels.push((k.to_string(), text(v)?));
            }
        }
        if let Some(expressions) = map.get("matchExpressions").filter(|v| !v.is_null()) {
            for e in expressions.as_array()? {
                let values = match e.get("values") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(v) => v.as_array()?.iter().map(text).collect::<Option<_>>()?,
                };
                selector.expressions.push(Expression {
                    key: text(e.get("key")?)?,
                    operator: text(e.get("operator")?)?,
                    values,
                });
            }
        }
        Some(selector)
    }

    /// Whether it selects everything.
    pub fn is_empty(&self) -> bool {
        self.match_labels.is_empty() && self.expressions.is_empty()
    }

    /// Whether it selects an object with these labels: `Unknown` when a requirement hangs
    /// on a label only the cluster knows and none fails.
    pub fn selects(&self, label: Labels<'_, '_>) -> Answer {
        self.selects_but(label, None)
    }

    /// [`Selector::selects`], taking the `matchLabels` label at `known` as holding (the
    /// object was found by it).
    pub fn selects_but(&self, label: Labels<'_, '_>, known: Option<usize>) -> Answer {
        let mut answer = Answer::Yes;
        let requirements = self
            .match_labels
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != known)
            .map(|(_, (k, v))| (k.as_str(), "In", std::slice::from_ref(v)))
            .chain(
                self.expressions.iter().map(|e| (e.key.as_str(), e.operator.as_str(), e.values.as_slice())),
            );
        for (key, operator, values) in requirements {
            let value = match label(key) {
                Lookup::Present if matches!(operator, "Exists" | "DoesNotExist") => Some(""),
                Lookup::Unknown | Lookup::Present => {
                    answer = Answer::Unknown;
                    continue;
                }
                Lookup::Value(v) => Some(v),
                Lookup::Absent => None,
            };
            let holds = match operator {
                "In" => value.is_some_and(|v| values.iter().any(|w| w == v)),
                "NotIn" => value.is_none_or(|v| !values.iter().any(|w| w == v)),
                "Exists" => value.is_some(),
                "DoesNotExist" => value.is_none(),
                // An operator Kubernetes does not know selects nothing (see `problem`).
                _ => false,
            };
            if !holds {
                return Answer::No;
            }
        }
        answer
    }

    /// Why apimachinery's `LabelSelectorAsSelector` refuses it (`pkg/apis/meta/v1/helpers.go`,
    /// `labels.NewRequirement`): an unknown operator, `In` or `NotIn` without values,
    /// `Exists` or `DoesNotExist` with values, a key or value that is not a valid label.
    pub fn problem(&self) -> Option<String> {
        let label = |key: &str, value: Option<&str>| names::label_refusal(key, value.unwrap_or_default());
        for (k, v) in &self.match_labels {
            if let Some(why) = label(k, Some(v)) {
                return Some(why);
            }
        }
        for e in &self.expressions {
            let why = match (e.operator.as_str(), e.values.is_empty()) {
                ("In" | "NotIn", true) => Some(format!("{} {} needs values", e.key, e.operator)),
                ("Exists" | "DoesNotExist", false) => {
                    Some(format!("{} {} takes no values", e.key, e.operator))
                }
                ("In" | "NotIn" | "Exists" | "DoesNotExist", _) => None,
                (other, _) => Some(format!("{other:?} is not a valid label selector operator")),
            };
            if let Some(why) = why.or_else(|| label(&e.key, None)) {
                return Some(why);
            }
            if let Some(why) = e.values.iter().find_map(|v| label(&e.key, Some(v))) {
                return Some(why);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::value::item_json as json;

    fn with<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Lookup<'a> {
        move |key| match pairs.iter().find(|(k, _)| *k == key) {
            Some((_, v)) if *v == "?" => Lookup::Unknown,
            Some((_, v)) => Lookup::Value(v),
            None => Lookup::Absent,
        }
    }

    #[test]
    fn match_labels_and_every_operator() {
        let s = Selector::read(Some(&json!({
            "matchLabels": {"app": "llama"},
            "matchExpressions": [
                {"key": "tier", "operator": "In", "values": ["gpu", "tpu"]},
                {"key": "canary", "operator": "DoesNotExist"},
                {"key": "zone", "operator": "NotIn", "values": ["a"]},
                {"key": "app", "operator": "Exists"},
            ]
        })))
        .unwrap();
        let yes = with(&[("app", "llama"), ("tier", "gpu")]);
        assert_eq!(s.selects(&yes), Answer::Yes);
        let canary = with(&[("app", "llama"), ("tier", "gpu"), ("canary", "1")]);
        assert_eq!(s.selects(&canary), Answer::No);
        let zone = with(&[("app", "llama"), ("tier", "gpu"), ("zone", "a")]);
        assert_eq!(s.selects(&zone), Answer::No);
        let unknown = with(&[("app", "llama"), ("tier", "?")]);
        assert_eq!(s.selects(&unknown), Answer::Unknown, "a label only the cluster knows");
        let failing = with(&[("app", "other"), ("tier", "?")]);
        assert_eq!(s.selects(&failing), Answer::No, "a requirement that fails settles it");
    }

    #[test]
    fn an_absent_or_empty_selector_selects_everything_and_a_broken_one_is_unread() {
        for empty in [None, Some(json!(null)), Some(json!({}))] {
            let s = Selector::read(empty.as_ref()).unwrap();
            assert_eq!(s.selects(&with(&[])), Answer::Yes);
        }
        assert_eq!(Selector::read(Some(&json!({"matchLabels": ["x"]}))), None);
        let pruned = Selector::read(Some(&json!({"matchLabels": {"app": "llama", "tier": null}}))).unwrap();
        assert_eq!(pruned.match_labels, [("app".to_string(), "llama".to_string())], "a null label is none");
        let bad =
            Selector::read(Some(&json!({"matchExpressions": [{"key": "a", "operator": "Near"}]}))).unwrap();
        assert_eq!(bad.selects(&with(&[("a", "b")])), Answer::No);
    }

    #[test]
    fn what_label_selector_as_selector_refuses() {
        let problem = |v: Value| Selector::read(Some(&v)).unwrap().problem();
        for bad in [
            json!({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": []}]}),
            json!({"matchExpressions": [{"key": "a", "operator": "In"}]}),
            json!({"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]}),
            json!({"matchExpressions": [{"key": "a", "operator": "Near"}]}),
            json!({"matchLabels": {"app name": "x"}}),
            json!({"matchLabels": {"app": "not valid!"}}),
        ] {
            assert!(problem(bad.clone()).is_some(), "{bad}");
        }
        assert_eq!(
            problem(
                json!({"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}], "matchLabels": {"b": ""}})
            ),
            None
        );
    }
}
