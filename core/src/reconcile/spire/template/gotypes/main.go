// Command gotypes writes the table of Go types that SPIRE Controller Manager's templates
// execute over (templateData in pkg/spireentry/entries.go, with the Kubernetes types it
// holds) for the template model in the parent folder: every type reachable from
// templateData through exported fields, with its fields and the methods text/template can
// call on it. Run `go run . > types.txt` here; the integration suite checks that the
// committed table is what this prints.
package main

import (
	"bufio"
	"fmt"
	"os"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// templateData is the manager's, field for field (entries.go).
type templateData struct {
	TrustDomain   string
	ClusterName   string
	ClusterDomain string
	PodMeta       *metav1.ObjectMeta
	PodSpec       *corev1.PodSpec
	NodeMeta      *metav1.ObjectMeta
	NodeSpec      *corev1.NodeSpec
}

var errorType = reflect.TypeOf((*error)(nil)).Elem()

type table struct {
	ids    map[reflect.Type]int
	order  []reflect.Type
	opaque map[reflect.Type]bool
}

// follow adds t and everything its exported fields, elements and keys reach.
func (tb *table) follow(t reflect.Type) int {
	if id, ok := tb.ids[t]; ok {
		if tb.opaque[t] {
			delete(tb.opaque, t)
			tb.followParts(t)
		}
		return id
	}
	id := tb.add(t)
	tb.followParts(t)
	return id
}

func (tb *table) followParts(t reflect.Type) {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		tb.follow(t.Elem())
	case reflect.Map:
		tb.follow(t.Key())
		tb.follow(t.Elem())
	case reflect.Struct:
		for _, f := range fields(t) {
			tb.follow(f.Type)
		}
	}
}

func (tb *table) add(t reflect.Type) int {
	id := len(tb.order)
	tb.ids[t] = id
	tb.order = append(tb.order, t)
	return id
}

// result adds a method's result type: a type the fields reach is there already; a pointer,
// slice or map is added with its parts; another named type is added without its fields or
// methods (the model knows nothing past it).
func (tb *table) result(t reflect.Type) int {
	if id, ok := tb.ids[t]; ok {
		return id
	}
	if t.Name() == "" {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			id := tb.add(t)
			tb.result(t.Elem())
			return id
		case reflect.Map:
			id := tb.add(t)
			tb.result(t.Key())
			tb.result(t.Elem())
			return id
		}
	}
	id := tb.add(t)
	if t.PkgPath() != "" || t.Kind() == reflect.Struct || t.Kind() == reflect.Interface {
		tb.opaque[t] = true
	}
	return id
}

// fields are the names reflect's FieldByName finds, exported, in declaration order
// (embedded structs' fields promoted as Go promotes them).
func fields(t reflect.Type) []reflect.StructField {
	var out []reflect.StructField
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() {
			continue
		}
		if g, ok := t.FieldByName(f.Name); ok && fmt.Sprint(g.Index) == fmt.Sprint(f.Index) {
			out = append(out, f)
		}
	}
	return out
}

// viaPointer reports whether the field is promoted through an embedded pointer, which Go
// follows only when it is not nil.
func viaPointer(t reflect.Type, index []int) bool {
	for _, i := range index[:len(index)-1] {
		f := t.Field(i)
		if f.Type.Kind() == reflect.Pointer {
			return true
		}
		t = f.Type
	}
	return false
}

func (tb *table) name(id int) string {
	t := tb.order[id]
	if t == reflect.TypeOf(templateData{}) {
		return "templateData"
	}
	if t == reflect.TypeOf(&templateData{}) {
		return "*templateData"
	}
	return t.String()
}

func main() {
	tb := &table{ids: map[reflect.Type]int{}, opaque: map[reflect.Type]bool{}}
	tb.follow(reflect.TypeOf(&templateData{}))
	// Methods' results, until no new type comes (results add no followed type).
	type method struct {
		name     string
		in       int
		variadic bool
		pointer  bool
		out      string
	}
	methods := map[int][]string{}
	for id := 0; id < len(tb.order); id++ {
		t := tb.order[id]
		if tb.opaque[t] || t.Kind() == reflect.Interface || t.Kind() == reflect.Pointer {
			continue
		}
		value := map[string]bool{}
		for i := 0; i < t.NumMethod(); i++ {
			value[t.Method(i).Name] = true
		}
		pt := reflect.PointerTo(t)
		for i := 0; i < pt.NumMethod(); i++ {
			m := pt.Method(i)
			mt := m.Type // the receiver is its first parameter
			good := mt.NumOut() == 1 || mt.NumOut() == 2 && mt.Out(1) == errorType
			// A method text/template cannot call fails as a name that is none does, except
			// on a map, where a name that is no method is a key.
			if !good && t.Kind() != reflect.Map {
				continue
			}
			out := fmt.Sprintf("!%d", mt.NumOut())
			switch {
			case !good:
			case mt.Out(0) == pt:
				out = "*"
			case mt.Out(0) == t:
				out = "="
			default:
				out = fmt.Sprint(tb.result(mt.Out(0)))
			}
			variadic, recv := 0, "v"
			if mt.IsVariadic() {
				variadic = 1
			}
			if !value[m.Name] {
				recv = "p"
			}
			methods[id] = append(methods[id], fmt.Sprintf("%s %d %d %s %s", m.Name, mt.NumIn()-1, variadic, recv, out))
		}
	}
	// The methods most API types share (generated: DeepCopy, String, Size...), written once.
	count := map[string]int{}
	for _, ms := range methods {
		for _, m := range ms {
			count[m]++
		}
	}
	var common []string
	for _, m := range methods[tb.ids[reflect.TypeOf(corev1.PodSpec{})]] {
		if count[m] >= 50 {
			common = append(common, m)
		}
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	fmt.Fprintln(w, "# The Go types of SPIRE Controller Manager's templateData (k8s.io/api and k8s.io/apimachinery v0.36.2).")
	fmt.Fprintln(w, "# Generated by `go run .` in core/src/reconcile/spire/template/gotypes; do not edit.")
	fmt.Fprintln(w, "# t ID KIND NAME [ELEM [KEY]] [skey] [opaque] [common]: a type (skey: a string is a key; opaque: not followed;")
	fmt.Fprintln(w, "#   common: has every c method); f NAME TYPE [ptr]: a field (ptr: through an embedded pointer);")
	fmt.Fprintln(w, "# m NAME ARGS VARIADIC p|v RESULT: a method text/template can call (p: of the pointer only; RESULT")
	fmt.Fprintln(w, "#   * the pointer to the type, = the type, !N: N results); c: a common method.")
	for _, m := range common {
		fmt.Fprintf(w, "c %s\n", m)
	}
	isCommon := map[string]bool{}
	for _, m := range common {
		isCommon[m] = true
	}
	for id, t := range tb.order {
		line := fmt.Sprintf("t %d %s %s", id, t.Kind(), tb.name(id))
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			line += fmt.Sprintf(" %d", tb.ids[t.Elem()])
		case reflect.Map:
			line += fmt.Sprintf(" %d %d", tb.ids[t.Elem()], tb.ids[t.Key()])
			if reflect.TypeOf("").AssignableTo(t.Key()) {
				line += " skey"
			}
		}
		if tb.opaque[t] {
			line += " opaque"
		}
		has := 0
		for _, m := range methods[id] {
			if isCommon[m] {
				has++
			}
		}
		all := len(common) > 0 && has == len(common)
		if all {
			line += " common"
		}
		fmt.Fprintln(w, line)
		if t.Kind() == reflect.Struct && !tb.opaque[t] {
			for _, f := range fields(t) {
				ptr := ""
				if viaPointer(t, f.Index) {
					ptr = " ptr"
				}
				fmt.Fprintf(w, "f %s %d%s\n", f.Name, tb.ids[f.Type], ptr)
			}
		}
		for _, m := range methods[id] {
			if !all || !isCommon[m] {
				fmt.Fprintf(w, "m %s\n", m)
			}
		}
	}
}
