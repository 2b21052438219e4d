//! What another ClusterSPIFFEID in the input selects: its `podSelector` and
//! `namespaceSelector`, Kubernetes label selectors (`matchLabels` and `matchExpressions`
//! with `In`, `NotIn`, `Exists`, `DoesNotExist`). An absent or empty selector selects
//! everything, as SPIRE Controller Manager reads it.

use serde_json::Value;

/// Whether a selector selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Yes,
    No,
    /// It hangs on labels the input does not hold (a namespace without its Namespace object).
    Unknown,
}

/// An object's labels, looked up by key.
pub type Labels<'l, 'a> = &'l dyn Fn(&str) -> Option<&'a str>;

/// A label selector, as read from a ClusterSPIFFEID.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selector {
    pub match_labels: Vec<(String, String)>,
    pub expressions: Vec<Expression>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expression {
    pub key: String,
    pub operator: String,
    pub values: Vec<String>,
}

impl Selector {
    /// The selector at `value` (a label selector mapping); `None` when it cannot be read,
    /// so nothing can be said of what it selects.
    pub fn read(value: Option<&Value>) -> Option<Selector> {
        let Some(value) = value.filter(|v| !v.is_null()) else { return Some(Selector::default()) };
        let map = value.as_object()?;
        let mut selector = Selector::default();
        if let Some(labels) = map.get("matchLabels").filter(|v| !v.is_null()) {
            for (k, v) in labels.as_object()? {
                selector.match_labels.push((k.clone(), v.as_str()?.to_string()));
            }
        }
        if let Some(expressions) = map.get("matchExpressions").filter(|v| !v.is_null()) {
            for e in expressions.as_array()? {
                let values = match e.get("values") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(v) => {
                        v.as_array()?.iter().map(|v| v.as_str().map(str::to_string)).collect::<Option<_>>()?
                    }
                };
                selector.expressions.push(Expression {
                    key: e.get("key")?.as_str()?.to_string(),
                    operator: e.get("operator")?.as_str()?.to_string(),
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

    /// Whether it selects an object with these labels (`None`: the labels are not known).
    pub fn selects(&self, labels: Option<Labels<'_, '_>>) -> Answer {
        if self.is_empty() {
            return Answer::Yes;
        }
        let Some(label) = labels else { return Answer::Unknown };
        let labels_match = self.match_labels.iter().all(|(k, v)| label(k) == Some(v.as_str()));
        let expressions_match = self.expressions.iter().all(|e| match e.operator.as_str() {
            "In" => label(&e.key).is_some_and(|v| e.values.iter().any(|w| w == v)),
            "NotIn" => label(&e.key).is_none_or(|v| !e.values.iter().any(|w| w == v)),
            "Exists" => label(&e.key).is_some(),
            "DoesNotExist" => label(&e.key).is_none(),
            // An operator Kubernetes does not know selects nothing (the API server refuses it).
            _ => false,
        });
        if labels_match && expressions_match { Answer::Yes } else { Answer::No }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn with<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<&'a str> {
        move |key| pairs.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
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
        assert_eq!(s.selects(Some(&yes)), Answer::Yes);
        let canary = with(&[("app", "llama"), ("tier", "gpu"), ("canary", "1")]);
        assert_eq!(s.selects(Some(&canary)), Answer::No);
        let zone = with(&[("app", "llama"), ("tier", "gpu"), ("zone", "a")]);
        assert_eq!(s.selects(Some(&zone)), Answer::No);
        assert_eq!(s.selects(None), Answer::Unknown);
    }

    #[test]
    fn an_absent_or_empty_selector_selects_everything_and_a_broken_one_is_unread() {
        for empty in [None, Some(json!(null)), Some(json!({}))] {
            let s = Selector::read(empty.as_ref()).unwrap();
            assert_eq!(s.selects(None), Answer::Yes);
        }
        assert_eq!(Selector::read(Some(&json!({"matchLabels": ["x"]}))), None);
        let bad =
            Selector::read(Some(&json!({"matchExpressions": [{"key": "a", "operator": "Near"}]}))).unwrap();
        assert_eq!(bad.selects(Some(&with(&[("a", "b")]))), Answer::No);
    }
}
