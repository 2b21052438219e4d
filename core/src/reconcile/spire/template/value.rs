//! What a template's expression holds for the pods of one pod template: a Go value the pod
//! template settles, the parts of the manager's data it settles in part, or a value only the
//! cluster has (of a Go type when the model knows it); how Go prints each and whether it is
//! true.

use super::types::Id;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Value {
    /// A value only the cluster has, or that execution may fail to give: of the Go type `ty`
    /// when the model knows it (every value of that type, never "no value"), or of any type,
    /// "no value" and nil among them. `addressable` decides which methods Go finds on it.
    Unknown {
        ty: Option<Id>,
        addressable: bool,
    },
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// Go's invalid value: a missing map key (printed `<no value>`), or nil as an argument.
    Absent,
    /// `*templateData`, `PodMeta` (`*metav1.ObjectMeta`), `PodSpec` (`*corev1.PodSpec`) and
    /// the pods' labels (`map[string]string`): never nil, their fields partly settled.
    Data,
    PodMeta,
    PodSpec,
    Labels,
}

impl Value {
    /// A value of any type, or none.
    pub const ANY: Value = Value::Unknown { ty: None, addressable: false };

    pub fn of_type(ty: Id, addressable: bool) -> Value {
        Value::Unknown { ty: Some(ty), addressable }
    }

    /// What `fmt.Fprint` writes for it, as text/template prints an action; `None` when the
    /// cluster decides (and for the structs and the map, whose printing is not reproduced).
    pub fn printed(&self) -> Option<String> {
        Some(match self {
            Value::Str(s) => s.clone(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => super::number::format_float(*f),
            Value::Bool(b) => b.to_string(),
            Value::Absent => super::NO_VALUE.to_string(),
            _ => return None,
        })
    }

    /// The operand as `fmt.Sprint` writes it among others (nil: `<nil>`), and whether it is
    /// a string (Sprint puts a space between two operands when neither is one).
    pub fn sprinted(&self) -> Option<(String, bool)> {
        match self {
            Value::Str(s) => Some((s.clone(), true)),
            Value::Absent => Some(("<nil>".into(), false)),
            other => other.printed().map(|p| (p, false)),
        }
    }

    /// Go's `isTrue`: `None` when only the cluster knows.
    pub fn truth(&self) -> Option<bool> {
        match self {
            Value::Str(s) => Some(!s.is_empty()),
            Value::Int(i) => Some(*i != 0),
            Value::Float(f) => Some(*f != 0.0),
            Value::Bool(b) => Some(*b),
            Value::Absent => Some(false),
            Value::Data | Value::PodMeta | Value::PodSpec => Some(true),
            Value::Labels | Value::Unknown { .. } => None,
        }
    }

    /// The Go type of a settled value, for messages.
    pub fn go_type(&self) -> &'static str {
        match self {
            Value::Str(_) => "string",
            Value::Int(_) => "int",
            Value::Float(_) => "float64",
            Value::Bool(_) => "bool",
            Value::Data => "*templateData",
            Value::PodMeta => "*v1.ObjectMeta",
            Value::PodSpec => "*v1.PodSpec",
            Value::Labels => "map[string]string",
            Value::Absent | Value::Unknown { .. } => "",
        }
    }
}
