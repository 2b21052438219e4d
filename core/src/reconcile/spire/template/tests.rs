//! The templates as the manager's Go would parse and execute them.

use super::*;

/// Parses as the manager parses a `spiffeIDTemplate`.
fn parse(template: &str) -> Result<Template, String> {
    super::parse(template, "spiffeIDTemplate")
}

fn labels(key: &str) -> Lookup<'static> {
    match key {
        "app" => Lookup::Value("llama"),
        "pod-template-hash" => Lookup::Unknown,
        _ => Lookup::Absent,
    }
}

fn eval(template: &str) -> Result<Evaluated, String> {
    let data = Data {
        trust_domain: Some("example.org"),
        namespace: Some("serving"),
        labels: &labels,
        service_account: Some("llama"),
        pod_name: None,
        containers: None,
        namespace_labels: None,
        owner: None,
    };
    parse(template).and_then(|t| t.evaluate(&data))
}

/// Each template parses, as Go's parser takes it.
fn all_parse(templates: &[&str]) {
    for t in templates {
        assert!(parse(t).is_ok(), "{t}: {:?}", parse(t));
    }
}

/// Each template is refused, as Go's parser refuses it.
fn all_refused(templates: &[&str]) {
    for t in templates {
        assert!(parse(t).is_err(), "{t}");
    }
}

#[test]
fn the_spire_helm_charts_default_template_evaluates() {
    let got =
        eval("spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}")
            .unwrap();
    assert_eq!(got.text, "spiffe://example.org/ns/serving/sa/llama");
    assert!(got.is_known());
}

#[test]
fn labels_by_field_and_by_index_and_missing_ones_as_go_prints_them() {
    assert_eq!(eval("{{.PodMeta.Labels.app}}").unwrap().text, "llama");
    assert_eq!(eval(r#"{{ index .PodMeta.Labels "app" }}"#).unwrap().text, "llama");
    assert_eq!(eval("{{ .PodMeta.Labels.tier }}").unwrap().text, "<no value>");
    assert_eq!(eval(r#"{{ index .PodMeta.Labels "tier" }}"#).unwrap().text, "");
    assert_eq!(eval("{{ .PodMeta.GetNamespace }}").unwrap().text, "serving");
}

#[test]
fn node_cluster_and_controller_data_stay_unknown_never_guessed() {
    let got = eval("spiffe://{{ .TrustDomain }}/{{ .ClusterName }}/{{.NodeMeta.Name}}").unwrap();
    assert_eq!(got.text, "spiffe://example.org/{{ .ClusterName }}/{{.NodeMeta.Name}}");
    assert_eq!(got.unknown, vec!["{{ .ClusterName }}", "{{.NodeMeta.Name}}"]);
    assert_eq!(got.known_runs().collect::<Vec<_>>(), vec!["spiffe://example.org/", "/", ""]);
    assert!(eval("{{ .PodMeta.Labels.pod-template-hash }}").is_err(), "a dash does not parse");
    assert!(!eval(r#"{{ index .PodMeta.Labels "pod-template-hash" }}"#).unwrap().is_known());
    assert!(!eval(r#"{{ .PodMeta.Name | printf "%s" }}"#).unwrap().is_known());
    assert!(!eval("{{ if .PodMeta.Labels.pod-template-hash }}a{{ end }}").is_ok_and(|e| e.is_known()));
    assert!(!eval("{{ if .ClusterName }}a{{ else }}b{{ end }}").unwrap().is_known());
    // A condition the pod template settles picks its branch, as Go's walkIfOrWith does.
    assert_eq!(eval("{{ if .PodMeta.Labels.app }}a{{ else }}b{{ end }}").unwrap().text, "a");
    let no_td = Data {
        trust_domain: None,
        namespace: Some("serving"),
        labels: &labels,
        service_account: Some("llama"),
        pod_name: None,
        containers: None,
        namespace_labels: None,
        owner: None,
    };
    assert!(!parse("spiffe://{{ .TrustDomain }}/x").unwrap().evaluate(&no_td).unwrap().is_known());
}

#[test]
fn a_field_the_data_does_not_have_fails_at_execution() {
    // Go: can't evaluate field Namspace in type *v1.ObjectMeta.
    for bad in [
        "{{ .PodMeta.Namspace }}",
        "{{ .PodSpec.ServiceAccount }}",
        "{{ .NodeSpec.Name }}",
        "{{ .Pod.Name }}",
        "{{ .PodMeta.Namespace.Name }}",
        "{{ .PodMeta.Labels.app.x }}",
        r#"{{ printf "%s" .PodMeta.Namspace }}"#,
    ] {
        assert!(eval(bad).unwrap_err().contains("can't evaluate field"), "{bad}");
    }
    // Fields the cluster fills are not failures.
    for fine in [
        "{{ .PodMeta.UID }}",
        "{{ .PodSpec.NodeName }}",
        "{{ .NodeMeta.Labels.zone }}",
        "{{ .NodeSpec.ProviderID }}",
    ] {
        assert!(!eval(fine).unwrap().is_known(), "{fine}");
    }
}

#[test]
fn what_gos_parser_refuses() {
    all_refused(&[
        "spiffe://x/{{ .PodMeta.Namespace",
        "{{ .PodMeta.Labels.app-name }}",
        "{{ .PodMeta.Name | lower }}",
        "{{ $x }}",
        "{{ end }}",
        "{{ if .PodMeta.Name }}x",
        "{{ \"x }}",
        "{{/* x */ }}",
        "{{ }}",
    ]);
    all_parse(&[
        "{{ $x := .PodMeta.Name }}{{ $x }}",
        "{{ range $i, $e := .PodSpec.Containers }}{{ $e.Name }}{{ end }}",
        "{{ with .PodMeta }}{{ .Name }}{{ end }}",
        "{{- /* c */ -}}",
        "{{ (index .PodMeta.Labels \"app\") }}",
        "{{ .PodMeta.Name | printf \"%s-x\" }}",
    ]);
}

#[test]
fn trim_markers_and_comments() {
    assert_eq!(eval("a {{- .PodMeta.Namespace -}} b{{/* c */}}").unwrap().text, "aservingb");
    assert_eq!(parse("k8s:ns:x").unwrap().constant(), Some("k8s:ns:x"));
    assert_eq!(parse("k8s:ns:{{ .PodMeta.Namespace }}").unwrap().constant(), None);
}

#[test]
fn a_template_without_actions_is_its_text_even_when_empty_or_only_a_comment() {
    assert_eq!(parse("").unwrap().constant(), Some(""));
    assert_eq!(parse("{{/* c */}}").unwrap().constant(), Some(""));
    assert_eq!(parse("{{ .PodMeta.Namespace }}").unwrap().constant(), None);
}

#[test]
fn a_string_constant_prints_itself_and_index_reads_only_the_pods_labels() {
    let got = eval(r#"k8s:pod-label:{{ "app" }}:llama"#).unwrap();
    assert_eq!(got.text, "k8s:pod-label:app:llama");
    assert!(got.is_known());
    // The node's labels are the cluster's: `index` of them is unknown, not a missing pod label.
    let got = eval(r#"{{ index .NodeMeta.Labels "app" }}"#).unwrap();
    assert_eq!(got.text, r#"{{ index .NodeMeta.Labels "app" }}"#);
    assert!(!got.is_known());
    assert_eq!(eval(r#"{{ index .PodMeta.GetLabels "app" }}"#).unwrap().text, "llama");
}

#[test]
fn a_trim_marker_needs_its_space_and_an_unknown_trimmed_action_is_kept_whole() {
    // `{{  .X }}` (two spaces) trims nothing: the marker is a dash then a space.
    assert_eq!(eval("a {{  .PodMeta.Namespace }} b").unwrap().text, "a serving b");
    let got = eval("a {{- .ClusterName -}} b").unwrap();
    assert_eq!(got.text, "a{{- .ClusterName -}}b");
    assert_eq!(got.unknown, vec!["{{- .ClusterName -}}"]);
    assert_eq!(got.known_runs().collect::<Vec<_>>(), vec!["a", "b"]);
}

#[test]
fn nested_control_structures_are_one_unknown_as_written() {
    let nested = "a{{ if .ClusterName }}{{ if .PodMeta.Name }}{{ range .PodMeta.Labels }}{{ . }}{{ end }}{{ end }}{{ end }}b";
    let got = eval(nested).unwrap();
    assert_eq!(got.text, nested);
    assert_eq!(got.unknown, vec![&nested[1..nested.len() - 1]]);
    assert_eq!(got.known_runs().collect::<Vec<_>>(), vec!["a", "b"]);
    // `with` of a value that is never empty runs its body with that dot; what the cluster
    // settles inside stays as written.
    let got = eval("a{{ with .PodMeta }}{{ .Namespace }}{{ if .Name }}x{{ end }}{{ end }}b").unwrap();
    assert_eq!(got.text, "aserving{{ if .Name }}x{{ end }}b");
    assert!(parse("{{ with .PodMeta }}{{ if .Name }}x{{ end }}").is_err(), "one end short");
    // A declaration prints nothing (exec.go's walk prints an action without declarations);
    // the variable holds the value.
    assert_eq!(eval("a{{ $ns := .PodMeta.Namespace }}b{{ $ns }}").unwrap().text, "abserving");
    // One the cluster settles may fail (a nil pointer, a method's error): kept as written.
    let got = eval("a{{ $ns := .ClusterName }}b{{ $ns }}").unwrap();
    assert_eq!(got.unknown, vec!["{{ $ns := .ClusterName }}", "{{ $ns }}"]);
}

#[test]
fn else_if_and_else_with_check_their_pipelines_and_template_break_continue_stand_where_go_allows() {
    all_parse(&[
        "{{ if .PodMeta.Name }}a{{ else if .PodSpec.NodeName }}b{{ else }}c{{ end }}",
        "{{ with .PodMeta.Name }}a{{ else with .PodSpec.NodeName }}b{{ end }}",
        r#"{{ template "x" }}"#,
        r#"{{ template "x" .PodMeta }}"#,
        "{{ range .PodSpec.Containers }}{{ if .Name }}{{ break }}{{ end }}{{ continue }}{{ end }}",
    ]);
    all_refused(&[
        "{{ if .PodMeta.Name }}a{{ else if .PodSpec.NodeName | lower }}b{{ end }}",
        "{{ with .PodMeta.Name }}a{{ else with $x }}b{{ end }}",
        "{{ template .PodMeta.Name }}",
        "{{ break }}",
        "{{ continue }}",
    ]);
}

#[test]
fn an_action_ends_at_the_first_closing_delimiter_outside_its_quotes() {
    // `}}` inside a string, raw string or char does not end the action; an escaped quote does
    // not end a string, and a raw string has no escapes.
    assert_eq!(eval(r#"a{{ "}}" }}b"#).unwrap().text, "a}}b");
    assert_eq!(eval(r#"a{{ "\"}}" }}b"#).unwrap().text, r#"a"}}b"#);
    assert_eq!(eval("a{{ `}}` }}b").unwrap().text, "a}}b");
    assert_eq!(eval(r"a{{ `\` }}b").unwrap().text, r"a\b");
    assert!(!eval(r#"a{{ printf "%c" '"' }}b"#).unwrap().is_known(), "a char holding a quote");
    // A newline ends a string, not a raw string.
    assert!(parse("{{ \"a\nb\" }}").is_err());
    assert_eq!(eval("{{ `a\nb` }}").unwrap().text, "a\nb");
    // A comment trimmed on both sides takes its markers and the space beside them.
    assert_eq!(eval("a {{- /* c */ -}} b").unwrap().text, "ab");
    assert_eq!(eval("a {{/* c */ -}} b").unwrap().text, "a b");
    // Nor does a space without its dash before `}}`.
    assert_eq!(eval("a {{ .PodMeta.Namespace  }} b").unwrap().text, "a serving b");
}

#[test]
fn numbers_signed_or_not_and_booleans_are_literals_not_function_names() {
    all_parse(&[
        r#"{{ printf "%d" 3 }}"#,
        r#"{{ printf "%d" -3 }}"#,
        "{{ +1.5e3 }}",
        "{{ 0x1F }}",
        "{{ .5 }}",
        "{{ if true }}a{{ end }}",
        r#"{{ printf "%t" false }}"#,
    ]);
    assert!(parse("{{ printf x3 }}").is_err(), "a word is a function, and x3 is none");
    // A number ends where Go's does: `.5` then a string right after it is no operand.
    assert!(parse(r#"{{ .5"x "y }}"#).unwrap_err().contains("in operand"));
    assert_eq!(
        eval(r#"{{ printf "%v %v" .5 .PodMeta.Namespace }}"#).unwrap().text,
        "0.5 serving",
        "no field .5"
    );
}

#[test]
fn a_variable_is_assigned_only_once_declared() {
    let assigned = "{{ $ns := .PodMeta.Namespace }}{{ $ns = .PodMeta.Name }}";
    assert!(parse(assigned).is_ok(), "{:?}", parse(assigned));
    assert_eq!(
        eval(assigned).unwrap().unknown,
        vec!["{{ $ns = .PodMeta.Name }}"],
        "a name only the cluster has"
    );
    let settled = r#"{{ $ns := .PodMeta.Namespace }}{{ $ns = "x" }}{{ $ns }}"#;
    assert_eq!(eval(settled).unwrap().text, "x", "declarations print nothing");
    // Go's parser takes an assignment to a variable never declared; execution fails on it.
    assert!(eval("{{ $ns = .PodMeta.Name }}").unwrap_err().contains("undefined variable: $ns"));
    assert!(parse("{{ $ns }}").unwrap_err().contains("undefined variable"));
}

#[test]
fn a_dot_that_ends_a_field_or_a_variable_never_renders() {
    // Go reads `.PodMeta.` as the field and a dot given to it as an argument, which fails.
    for bad in ["{{ .PodMeta. }}", "{{ $ns := .PodMeta.Namespace }}{{ $ns. }}"] {
        assert!(eval(bad).is_err(), "{bad}");
    }
    assert_eq!(eval(r#"{{ . | printf "%T" }}"#).map(|e| e.is_known()), Ok(false), "dot alone");
}

#[test]
fn parentheses_hold_a_pipeline_of_their_own_and_must_balance() {
    // A pipe inside parentheses belongs to the parenthesized pipeline.
    let piped = r#"{{ (.PodMeta.Name | printf "%s") }}"#;
    assert_eq!(eval(piped).map(|e| e.is_known()), Ok(false), "{:?}", parse(piped));
    // After the closing parenthesis the action's own arguments are evaluated again: a field
    // the data does not have fails.
    let after = r#"{{ printf "%s %s" (.PodMeta.Name) .PodMeta.Namspace }}"#;
    assert!(eval(after).unwrap_err().contains("can't evaluate field Namspace"), "{after}");
    all_refused(&["{{ (.PodMeta.Name }}", "{{ printf \"%s\" ((.PodMeta.Name) }}", "{{ .PodMeta.Name) }}"]);
}

#[test]
fn only_range_declares_two_variables() {
    let range = "{{ range $i, $e := .PodSpec.Containers }}{{ $i }}{{ $e.Name }}{{ end }}";
    assert!(parse(range).is_ok(), "{:?}", parse(range));
    // Go: too many declarations in command, if, with.
    all_refused(&[
        "{{ $i, $e := .PodSpec.Containers }}",
        "{{ if $i, $e := .PodSpec.Containers }}a{{ end }}",
        "{{ with $i, $e := .PodSpec.Containers }}a{{ end }}",
        "{{ if .PodMeta.Name }}a{{ else if $i, $e := .PodSpec.Containers }}b{{ end }}",
    ]);
}

#[test]
fn nil_is_a_value_where_other_keywords_are_refused() {
    all_parse(&[r#"{{ printf "%v" nil }}"#, "{{ if eq .PodMeta.Name nil }}a{{ end }}"]);
    assert!(parse(r#"{{ printf "%v" end }}"#).unwrap_err().contains("unexpected"));
}

#[test]
fn the_pipeline_a_template_call_passes_is_checked_as_any_other() {
    all_parse(&[r#"{{ template "x" }}"#, r#"{{ template "x" .PodMeta | printf "%v" }}"#]);
    assert!(parse(r#"{{ template "x" $y }}"#).unwrap_err().contains("undefined variable"));
    assert!(parse(r#"{{ template "x" .PodMeta | lower }}"#).unwrap_err().contains("not defined"));
}

/// Go counts the `range` bodies a `break` or `continue` stands in (`rangeDepth` in
/// text/template/parse's `parseControl`): an `if` or `with` outside any range, or a range's
/// `else`, is not one, and the keyword takes nothing after it (`breakControl`).
#[test]
fn break_and_continue_stand_only_in_a_range_body_and_alone() {
    all_parse(&[
        "{{ range .PodSpec.Containers }}{{ with .Name }}{{ if . }}{{ continue }}{{ end }}{{ end }}{{ end }}",
        "{{ if .PodMeta.Name }}{{ range .PodSpec.Containers }}{{ break }}{{ end }}{{ end }}",
        "{{ range .PodSpec.Containers }}{{ if .Name }}a{{ else }}{{ break }}{{ end }}{{ end }}",
    ]);
    all_refused(&[
        "{{ if .PodMeta.Name }}{{ break }}{{ end }}",
        "{{ with .PodMeta.Name }}{{ continue }}{{ end }}",
        "{{ range .PodSpec.Containers }}a{{ else }}{{ break }}{{ end }}",
        "{{ range .PodSpec.Containers }}{{ end }}{{ if .PodMeta.Name }}{{ continue }}{{ end }}",
        "{{ range .PodSpec.Containers }}{{ break 1 }}{{ end }}",
    ]);
}

/// strconv.Unquote (strconv/quote.go), which text/template's parser calls on every string:
/// Go's escapes give the text they stand for, and an invalid one refuses the template.
#[test]
fn strings_chars_and_numbers_read_as_go_reads_them() {
    for (template, want) in [
        (r#"{{ "ex\x61mple.org" }}"#, "example.org"),
        (r#"{{ "ex\u0061mple.org" }}"#, "example.org"),
        (r#"{{ "ex\141mple.org" }}"#, "example.org"),
        (r#"{{ "a\"b\\c\td" }}"#, "a\"b\\c\td"),
        ("{{ `a\\x61\r` }}", "a\\x61"),
        // A character constant is a number (node.go `newNumber`): printed as one.
        ("{{ 'a' }}", "97"),
        (r"{{ '\x61' }}", "97"),
        ("{{ 'é' }}", "233"),
        // exec.go `idealConstant`, printed by fmt's %v.
        ("{{ 0x10 }}", "16"),
        ("{{ 1e3 }}", "1000"),
        ("{{ 1_0 }}", "10"),
        ("{{ 010 }}", "8"),
        ("{{ 0b101 }}", "5"),
        ("{{ 0x1p4 }}", "16"),
        ("{{ 1e6 }}", "1e+06"),
        ("{{ 0.00001 }}", "1e-05"),
        ("{{ 123456.5 }}", "123456.5"),
        ("{{ -0.0 }}", "-0"),
        ("{{ .5 }}", "0.5"),
        ("{{ -0 }}", "0"),
    ] {
        assert_eq!(eval(template).map(|e| e.text), Ok(want.to_string()), "{template}");
    }
    all_refused(&[
        r#"{{ "a\qb" }}"#,
        r#"{{ "\400" }}"#,
        r#"{{ "\uD800" }}"#,
        "{{ 'ab' }}",
        "{{ '' }}",
        "{{ 08 }}",
        "{{ 1__0 }}",
        "{{ 1e400 }}",
        "{{ 1+i }}",
    ]);
    // Bytes that are no UTF-8 text, and complex numbers, print as this model does not
    // reproduce: kept as written.
    for unknown in [r#"{{ "\xff" }}"#, "{{ 1+2i }}", "{{ 2i }}"] {
        assert!(!eval(unknown).unwrap().is_known(), "{unknown}");
    }
    // An unsigned constant past int fails to execute (exec.go: "overflows int").
    assert!(eval("{{ 0xFFFFFFFFFFFFFFFF }}").unwrap_err().contains("overflows int"));
}

/// evalField (exec.go) tries a method of the name first, on the pointer when the value is
/// addressable; a method's result chains on; the wrong number of arguments, or one with no
/// result, fails; a field given arguments fails.
#[test]
fn methods_of_the_go_types_give_values_or_fail_where_go_fails() {
    for (template, want) in [
        ("{{ .PodMeta.GetNamespace }}", "serving"),
        ("{{ .PodMeta.GetLabels.app }}", "llama"),
        ("{{ .PodMeta.GetLabels.tier }}", "<no value>"),
        (r#"{{ index .PodMeta.GetLabels "\x61pp" }}"#, "llama"),
        ("{{ (.PodMeta).GetNamespace }}", "serving"),
        ("{{ $m := .PodMeta }}{{ $m.GetNamespace }}", "serving"),
        ("{{ with .PodMeta }}{{ .GetNamespace }}{{ end }}", "serving"),
        ("{{ if .PodMeta.GetNamespace }}yes{{ end }}", "yes"),
        ("{{ .PodMeta.GetNamespace | printf \"%s-x\" }}", "serving-x"),
        ("{{ .PodMeta.GetNamespace | len }}", "7"),
        ("{{ len .PodMeta.GetNamespace }}", "7"),
        ("{{ eq .PodMeta.GetNamespace \"serving\" }}", "true"),
    ] {
        assert_eq!(eval(template).map(|e| e.text), Ok(want.to_string()), "{template}");
    }
    // Only the cluster has these: kept as written, never a failure.
    for unknown in [
        "{{ .PodMeta.String }}",
        "{{ .PodSpec.Size }}",
        "{{ .PodMeta.CreationTimestamp.Unix }}",
        "{{ .PodMeta.CreationTimestamp.IsZero }}",
        "{{ .NodeMeta.GetUID }}",
        "{{ .PodMeta.GetName }}",
        "{{ .PodMeta.Marshal }}",
        "{{ .PodMeta.DeepCopy.Namespace }}",
        "{{ .PodMeta.GetObjectMeta.GetNamespace }}",
        "{{ .PodMeta.SwaggerDoc.name }}",
        "{{ .PodSpec.OpenAPIModelName }}",
        r#"{{ .PodMeta.CreationTimestamp.Format "2006" }}"#,
        "{{ .PodSpec.SecurityContext.RunAsUser }}",
        "{{ .PodSpec.NodeSelector.zone.x }}",
        "{{ .PodSpec.Overhead.Cpu }}",
        "{{ index .PodSpec.Containers 0 }}",
        "{{ .PodMeta.String | printf \"%s\" }}",
        "{{ printf \"%s\" .PodMeta.String }}",
        "{{ .PodMeta.String | len }}",
        "{{ with .PodMeta.DeletionTimestamp }}{{ .Unix }}{{ end }}",
        "{{ $t := .PodMeta.CreationTimestamp }}{{ $t.IsZero }}",
        // Results of types the table does not follow (time.Location, inf.Dec) may have any
        // field or method.
        "{{ .PodMeta.CreationTimestamp.Location.String }}",
        "{{ .PodMeta.CreationTimestamp.ProtoTime.Seconds }}",
        "{{ .PodMeta.CreationTimestamp.Month.String }}",
        "{{ .PodMeta.GetObjectMeta.GetName }}",
    ] {
        let got = eval(unknown).unwrap_or_else(|e| panic!("{unknown}: {e}"));
        assert!(!got.is_known(), "{unknown}: {}", got.text);
    }
    for (bad, why) in [
        // Go: "wrong number of args for SetName"; the table leaves out the methods a template
        // can never call (no result), which fail as a name that is none does.
        ("{{ .PodMeta.SetName }}", "SetName"),
        (r#"{{ .PodMeta.SetName "x" }}"#, "SetName"),
        (r#"{{ .PodMeta.GetName "x" }}"#, "wrong number of args for GetName: want 0 got 1"),
        (r#"{{ "x" | .PodMeta.GetNamespace }}"#, "wrong number of args"),
        ("{{ .PodMeta.Reset }}", "can't evaluate field Reset"),
        ("{{ .PodMeta.CreationTimestamp.Format }}", "wrong number of args for Format: want 1 got 0"),
        (r#"{{ "x" | .PodMeta.Namespace }}"#, "Namespace has arguments but cannot be invoked as function"),
        ("{{ .PodMeta.GetNamespace.Len }}", "can't evaluate field Len in type string"),
        ("{{ .PodMeta.GetUID.Foo }}", "can't evaluate field Foo in type types.UID"),
        // A method's result is no addressable value: IsZero takes a pointer.
        ("{{ .PodMeta.GetCreationTimestamp.IsZero }}", "can't evaluate field IsZero in type v1.Time"),
        ("{{ .PodSpec.Overhead.cpu }}", "can't evaluate field cpu in type v1.ResourceList"),
        ("{{ .PodSpec.Containers.Name }}", "can't evaluate field Name in type []v1.Container"),
        ("{{ .PodSpec.SecurityContext.Foo }}", "can't evaluate field Foo in type *v1.PodSecurityContext"),
        ("{{ .PodMeta.CreationTimestamp.wall }}", "can't evaluate field wall"),
        ("{{ .PodMeta.Labels.app 2 }}", "app is not a method but has arguments"),
        ("{{ nil }}", "nil is not a command"),
        ("{{ $x := 1 }}{{ $x 2 }}", "can't give argument to non-function"),
    ] {
        assert!(eval(bad).is_err_and(|e| e.contains(why)), "{bad}: {:?}", eval(bad));
    }
}

/// Shapes around methods and values that must never read as a failure where Go gives a
/// value: nested chains, `index` with escaped keys, `printf`, `len`, variables, `with` and
/// `if` around methods, pipelines into methods and functions, `and`/`or` that stop early.
#[test]
fn no_shape_fails_where_go_gives_a_value() {
    for (template, want) in [
        (r#"{{ index .PodMeta.Labels "\u0061pp" }}"#, Some("llama")),
        (r#"{{ printf "%s/%s" .PodMeta.GetNamespace .PodSpec.ServiceAccountName }}"#, Some("serving/llama")),
        (r#"{{ printf "%d" (len .PodMeta.GetNamespace) }}"#, Some("7")),
        ("{{ $ns := .PodMeta.GetNamespace }}{{ $ns }}/{{ len $ns }}", Some("serving/7")),
        ("{{ with $l := .PodMeta.GetLabels }}{{ $l.app }}{{ end }}", None),
        ("{{ if .PodMeta.GetLabels.app }}{{ .PodMeta.GetLabels.app }}{{ else }}none{{ end }}", Some("llama")),
        ("{{ if not .PodMeta.GetLabels.tier }}no-tier{{ end }}", Some("no-tier")),
        (r#"{{ or .PodMeta.GetLabels.tier "default" }}"#, Some("default")),
        (r#"{{ and .PodMeta.GetLabels.tier .PodMeta.Nope }}"#, Some("<no value>")),
        (r#"{{ or "x" .PodMeta.Nope }}"#, Some("x")),
        (r#"{{ slice .PodMeta.GetNamespace 0 4 }}"#, Some("serv")),
        (r#"{{ print .PodMeta.GetNamespace 1 2 }}"#, Some("serving1 2")),
        (r#"{{ urlquery "a b/c" }}"#, Some("a+b%2Fc")),
        (r#"{{ html "<a>" }}"#, Some("&lt;a&gt;")),
        (r#"{{ js "a'b" }}"#, Some("a\\'b")),
        ("{{ .PodMeta.GetLabels | len }}", None),
        ("{{ .PodMeta.CreationTimestamp.UTC.Year }}", None),
        ("{{ (.PodMeta.GetObjectMeta).GetName }}", None),
        ("{{ range $k, $v := .PodMeta.GetLabels }}{{ $k }}{{ end }}", None),
        (r#"{{ template "x" }}"#, None),
        (r#"{{ block "x" . }}{{ .PodMeta.GetNamespace }}{{ end }}"#, None),
        (r#"{{ define "x" }}{{ .Nope }}{{ end }}{{ .PodMeta.GetNamespace }}"#, Some("serving")),
    ] {
        let got = eval(template).unwrap_or_else(|e| panic!("{template}: {e}"));
        match want {
            Some(text) => assert_eq!(got.text, text, "{template}"),
            None => assert!(!got.is_known(), "{template}: {}", got.text),
        }
    }
}

/// A variable assigned in a part only the cluster settles is unknown after it
/// (exec.go `setVar` changes the outer variable); a command the cluster settles may fail,
/// even when a later `or` does not read it.
#[test]
fn what_the_cluster_settles_taints_what_follows_it() {
    let got = eval(r#"{{ $x := "a" }}{{ if .ClusterName }}{{ $x = "b" }}{{ end }}{{ $x }}"#).unwrap();
    assert_eq!(got.unknown, vec![r#"{{ if .ClusterName }}{{ $x = "b" }}{{ end }}"#, "{{ $x }}"]);
    let got = eval(r#"{{ .PodMeta.GetUID | or "x" }}"#).unwrap();
    assert!(!got.is_known(), "{}", got.text);
}

/// Found by running the model and Go side by side on generated templates: nil prints
/// `<no value>` through `html`, `js` and `urlquery` (`evalArgs`) but `<nil>` through `print`;
/// `index` of nil fails even without indexes (funcs.go `index`).
#[test]
fn what_side_by_side_runs_with_go_found() {
    assert_eq!(eval("{{ urlquery .PodMeta.Labels.tier 1 }}").unwrap().text, "%3Cno+value%3E1");
    assert_eq!(eval("{{ print .PodMeta.Labels.tier 1 }}").unwrap().text, "<nil> 1");
    assert!(eval("{{ index nil }}").unwrap_err().contains("index of untyped nil"));
    assert!(eval("{{ index .PodMeta.Labels.tier 0 }}").unwrap_err().contains("index of untyped nil"));
}

/// `define` adds a template and prints nothing (parse.go `parseDefinition`); a definition of
/// the template's own name replaces an empty body, and one beside a body is refused
/// (`Tree.add`: "multiple definition").
#[test]
fn a_definition_of_the_templates_own_name_is_the_template() {
    assert_eq!(
        eval(r#"{{ define "spiffeIDTemplate" }}{{ .PodMeta.Namespace }}{{ end }}"#).unwrap().text,
        "serving"
    );
    assert!(
        parse(r#"{{ define "spiffeIDTemplate" }}a{{ end }}b"#).unwrap_err().contains("multiple definition")
    );
    assert!(
        parse(r#"{{ define "x" }}a{{ end }}{{ define "x" }}b{{ end }}"#).unwrap_err().contains("multiple")
    );
    assert_eq!(eval(r#"{{ define "x" }}{{ end }}{{ define "x" }}b{{ end }}c"#).unwrap().text, "c");
    assert_eq!(
        super::parse(r#"{{ define "dnsNameTemplate" }}a{{ end }}"#, "dnsNameTemplate").unwrap().constant(),
        Some("a")
    );
}

/// A number, character or complex constant in an action is a `parse.NumberNode` to Go, which
/// a manager with the entry render cache cannot hash; text outside actions is no constant.
#[test]
fn a_number_constant_is_known_in_any_action() {
    for template in
        ["x{{ 1 }}", "{{ slice .PodMeta.Name 0 }}", "{{ printf \"%c\" 'a' }}", "{{ 1i }}", "{{- 0x1F -}}"]
    {
        assert!(has_number_constant(template), "{template}");
    }
    for template in
        ["spiffe://x/1/2", "{{ .PodMeta.Name }}-1", "{{ \"1\" }}", "{{ index .PodMeta.Labels \"app\" }}"]
    {
        assert!(!has_number_constant(template), "{template}");
    }
}
