//! Executing a template as text/template's `exec.go` does, over what one pod template
//! settles: each step gives a value the pods share, a value only the cluster has, or fails
//! for every pod (then Go fails to execute the template and the manager makes no entry). A
//! step fails only where it fails whatever the cluster holds: a name that is neither field nor
//! method of the type (`evalField`), a method or function given the wrong number of arguments
//! or that text/template cannot call (`evalCall`, `goodFunc`), arguments to what is no
//! function, and builtins whose settled arguments Go refuses.

use super::parse::{Arg, Control, Node, Pipe};
use super::types::{Returns, types};
use super::value::Value;
use super::{Data, Evaluated, fields, funcs};
use std::ops::Range;

/// Why Go fails to execute the template for these pods.
pub(super) type Fails = String;
pub(super) type Step = Result<Value, Fails>;

pub(super) struct State<'a, 'd> {
    pub data: &'a Data<'d>,
    /// The variables in scope, innermost last (`$` first).
    vars: Vec<(String, Value)>,
    text: &'a str,
}

impl<'a, 'd> State<'a, 'd> {
    pub fn new(data: &'a Data<'d>, text: &'a str) -> Self {
        State { data, vars: vec![("$".into(), Value::Data)], text }
    }

    /// Writes `nodes` for `dot` into `out`.
    pub fn walk(&mut self, nodes: &[Node], dot: &Value, out: &mut Evaluated) -> Result<(), Fails> {
        for node in nodes {
            match node {
                Node::Text(text) => out.text.push_str(text),
                Node::Action(span, pipe) => {
                    let value = self.pipeline(pipe, dot).map_err(|why| self.at(span, why))?;
                    match (pipe.decl.is_empty(), value.printed()) {
                        (true, Some(text)) => out.text.push_str(&text),
                        // A declaration prints nothing, once its pipeline has run: one the
                        // cluster settles may have failed, and stays as written.
                        (false, _) if !matches!(value, Value::Unknown { .. }) => {}
                        _ => self.unknown(span, out),
                    }
                }
                Node::If(control) | Node::With(control) => {
                    let with = matches!(node, Node::With(_));
                    self.if_or_with(control, with, dot, out)?;
                }
                Node::Range(control) => {
                    // What a range gives is the cluster's; its pipeline runs first.
                    let mark = self.vars.len();
                    let ranged = self.pipeline(&control.pipe, dot);
                    self.vars.truncate(mark);
                    ranged.map_err(|why| self.at(&control.span, why))?;
                    self.unknown_structure(&control.span, out);
                }
                Node::Call(span) | Node::Break(span) | Node::Continue(span) => {
                    self.unknown_structure(span, out)
                }
            }
        }
        Ok(())
    }

    fn if_or_with(
        &mut self,
        control: &Control,
        with: bool,
        dot: &Value,
        out: &mut Evaluated,
    ) -> Result<(), Fails> {
        let mark = self.vars.len();
        let value = self.pipeline(&control.pipe, dot);
        let result = match value {
            Err(why) => Err(self.at(&control.span, why)),
            Ok(value) => match value.truth() {
                Some(true) if with => self.walk(&control.list, &value, out),
                Some(true) => self.walk(&control.list, dot, out),
                Some(false) => self.walk(&control.otherwise, dot, out),
                None => {
                    self.unknown_structure(&control.span, out);
                    Ok(())
                }
            },
        };
        self.vars.truncate(mark);
        result
    }

    /// Why an action fails, after the action as written (a control structure's first action).
    fn at(&self, span: &Range<usize>, why: Fails) -> Fails {
        let written = &self.text[span.clone()];
        let action = written.find("}}").map_or(written, |end| &written[..end + 2]);
        format!("{action}: {why}")
    }

    fn unknown(&self, span: &Range<usize>, out: &mut Evaluated) {
        let written = &self.text[span.clone()];
        let start = out.text.len();
        out.text.push_str(written);
        out.spans.push(start..out.text.len());
        out.unknown.push(written.to_string());
    }

    /// A part only the cluster settles: anything it assigns is unknown after it.
    fn unknown_structure(&mut self, span: &Range<usize>, out: &mut Evaluated) {
        for (_, value) in &mut self.vars {
            *value = Value::ANY;
        }
        self.unknown(span, out);
    }

    pub fn pipeline(&mut self, pipe: &Pipe, dot: &Value) -> Step {
        let mut value = None;
        let mut unsettled = false;
        for cmd in &pipe.cmds {
            if let Some(Value::Unknown { .. }) = value {
                unsettled = true;
            }
            value = Some(self.command(cmd, dot, value)?);
        }
        let mut value = value.unwrap_or(Value::ANY);
        // A command the cluster settles may have failed, even when a later one (`or`, `and`)
        // does not read what it gave.
        if unsettled {
            value = Value::ANY;
        }
        for name in &pipe.decl {
            if !pipe.assign {
                self.vars.push((name.clone(), value.clone()));
                continue;
            }
            // Go's parser takes an assignment to a variable never declared; `setVar` fails.
            match self.vars.iter_mut().rev().find(|(n, _)| n == name) {
                Some((_, v)) => *v = value.clone(),
                None => return Err(format!("undefined variable: {name}")),
            }
        }
        Ok(value)
    }

    fn command(&mut self, cmd: &[Arg], dot: &Value, last: Option<Value>) -> Step {
        match &cmd[0] {
            Arg::Field(chain) => self.field_chain(dot, dot.clone(), chain, cmd, last),
            Arg::Chain(node, chain) => {
                let receiver = self.arg(dot, node)?;
                self.field_chain(dot, receiver, chain, cmd, last)
            }
            Arg::Function(name) => funcs::call(self, name, &cmd[1..], dot, last),
            Arg::Variable(name, chain) => {
                let value = self.variable(name);
                if chain.is_empty() {
                    not_a_function(cmd, last.as_ref())?;
                    return Ok(value);
                }
                self.field_chain(dot, value, chain, cmd, last)
            }
            Arg::Pipe(pipe) => {
                not_a_function(cmd, last.as_ref())?;
                self.pipeline(pipe, dot)
            }
            Arg::Nil => {
                not_a_function(cmd, last.as_ref())?;
                Err("nil is not a command".into())
            }
            constant => {
                not_a_function(cmd, last.as_ref())?;
                self.arg(dot, constant)
            }
        }
    }

    fn variable(&self, name: &str) -> Value {
        self.vars.iter().rev().find(|(n, _)| n == name).map_or(Value::ANY, |(_, v)| v.clone())
    }

    /// An argument, evaluated as `evalArg` does for a function that takes any value.
    pub fn arg(&mut self, dot: &Value, arg: &Arg) -> Step {
        match arg {
            Arg::Dot => Ok(dot.clone()),
            Arg::Nil => Ok(Value::Absent),
            Arg::Bool(b) => Ok(Value::Bool(*b)),
            Arg::Number(n) => match n {
                super::number::Number::Int(i) => Ok(Value::Int(*i)),
                super::number::Number::Float(f) => Ok(Value::Float(*f)),
                super::number::Number::Complex => Ok(Value::ANY),
                super::number::Number::OverflowsInt => Err("the constant overflows int".into()),
            },
            // A string that is no UTF-8 prints bytes this model keeps unknown.
            Arg::Str(bytes) => Ok(String::from_utf8(bytes.clone()).map_or(Value::ANY, Value::Str)),
            Arg::Field(chain) => self.field_chain(dot, dot.clone(), chain, std::slice::from_ref(arg), None),
            Arg::Variable(name, chain) => {
                let value = self.variable(name);
                if chain.is_empty() {
                    return Ok(value);
                }
                self.field_chain(dot, value, chain, std::slice::from_ref(arg), None)
            }
            Arg::Chain(node, chain) => {
                let receiver = self.arg(dot, node)?;
                self.field_chain(dot, receiver, chain, std::slice::from_ref(arg), None)
            }
            Arg::Pipe(pipe) => self.pipeline(pipe, dot),
            Arg::Function(name) => funcs::call(self, name, &[], dot, None),
        }
    }

    /// `.A.B.C` from `receiver`; the last name gets the command's arguments (`cmd[1..]`) and
    /// the pipeline's value (`last`).
    fn field_chain(
        &mut self,
        dot: &Value,
        mut receiver: Value,
        chain: &[String],
        cmd: &[Arg],
        last: Option<Value>,
    ) -> Step {
        let (final_name, names) = chain.split_last().expect("a chain has a name");
        for name in names {
            receiver = self.field(dot, name, &[], None, receiver)?;
        }
        self.field(dot, final_name, cmd, last, receiver)
    }

    /// `evalField`: a method of that name first, then a field or a map key.
    fn field(&mut self, dot: &Value, name: &str, cmd: &[Arg], last: Option<Value>, receiver: Value) -> Step {
        let has_args = cmd.len() > 1 || last.is_some();
        let (ty, addressable) = match &receiver {
            // A missing key's value gives no value for any field of it.
            Value::Absent => return Ok(Value::Absent),
            Value::Unknown { ty: None, .. } => return Ok(Value::ANY),
            Value::Unknown { ty: Some(ty), addressable } => (*ty, *addressable),
            settled => match fields::type_of(settled) {
                Some(ty) => (ty, false),
                None => return Err(format!("can't evaluate field {name} in type {}", settled.go_type())),
            },
        };
        let t = types().get(ty);
        // A type the table does not follow (a method's result from another package, or a
        // pointer to one) may have any field or method.
        if t.opaque
            || t.kind == "interface"
            || t.elem.is_some_and(|e| t.kind == "ptr" && types().get(e).opaque)
        {
            return Ok(Value::ANY);
        }
        if let Some(method) = types().method(ty, name, addressable) {
            let given = cmd.len().saturating_sub(1) + usize::from(last.is_some());
            let (want, variadic) = (method.args, method.variadic);
            if variadic && given + 1 < want || !variadic && given != want {
                return Err(format!("wrong number of args for {name}: want {want} got {given}"));
            }
            let result = method.result;
            if result == Returns::Nothing {
                return Err(format!("method {name} cannot be called from a template (its results)"));
            }
            for arg in cmd.iter().skip(1) {
                if !matches!(arg, Arg::Str(_) | Arg::Number(_) | Arg::Bool(_) | Arg::Nil) {
                    self.arg(dot, arg)?;
                }
            }
            if let Some(settled) = fields::method(&receiver, name, self.data) {
                return Ok(settled);
            }
            return Ok(match result {
                Returns::Type(id) => Value::of_type(id, false),
                Returns::Untracked | Returns::Nothing => Value::ANY,
            });
        }
        match t.kind.as_str() {
            "struct" => self.struct_field(ty, &t.name, name, has_args, &receiver, addressable),
            "ptr" => {
                let Some(elem) = t.elem else { return Ok(Value::ANY) };
                match types().get(elem).kind.as_str() {
                    // Not nil: the struct's field; nil: "nil pointer evaluating". Either way a
                    // name the struct lacks fails.
                    "struct" => self.struct_field(elem, &t.name, name, has_args, &receiver, true),
                    "ptr" | "interface" => Ok(Value::ANY),
                    _ => Err(format!("can't evaluate field {name} in type {}", t.name)),
                }
            }
            "map" if t.string_key => {
                if has_args {
                    return Err(format!("{name} is not a method but has arguments"));
                }
                Ok(fields::key(&receiver, name, self.data))
            }
            _ => Err(format!("can't evaluate field {name} in type {}", t.name)),
        }
    }

    /// A field of the struct `ty` (reached through a value of type `written`).
    fn struct_field(
        &self,
        ty: usize,
        written: &str,
        name: &str,
        has_args: bool,
        receiver: &Value,
        addressable: bool,
    ) -> Step {
        let Some((field, _)) = types().field(ty, name) else {
            return Err(format!("can't evaluate field {name} in type {written}"));
        };
        if has_args {
            return Err(format!("{name} has arguments but cannot be invoked as function"));
        }
        Ok(fields::field(receiver, name, self.data).unwrap_or(Value::of_type(field, addressable)))
    }
}

/// `notAFunction`: a value given arguments, or the pipeline's.
fn not_a_function(cmd: &[Arg], last: Option<&Value>) -> Result<(), Fails> {
    if cmd.len() > 1 || last.is_some() {
        return Err("can't give argument to non-function".into());
    }
    Ok(())
}
