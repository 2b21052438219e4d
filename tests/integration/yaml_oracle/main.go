// Command yaml-oracle reads YAML streams as kubectl reads the files of `kubectl apply -f`
// and prints, for each, the objects kubectl would send: the integration suite holds the
// function's reader to it (tests/integration/yaml_oracle.rs).
//
// kubectl cuts a file into documents and reads each as k8s.io/cli-runtime's
// StreamVisitor.Visit does: k8s.io/apimachinery/pkg/util/yaml's NewYAMLOrJSONDecoder (a
// JSON stream when the text opens with `{`, else YAMLToJSONDecoder: its YAMLReader cuts at
// lines that open with `---`, and sigs.k8s.io/yaml converts each part, YAML 1.1 through
// go-yaml v2, to JSON), into runtime.RawExtension values, skipping empty and `null`
// documents; it then decodes each into a map, as unstructured's JSON scheme does.
//
// Input: one file path a line on stdin. Output: one JSON line a file, in order, either
// {"docs": [...]} or {"error": "..."}.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/yaml"
)

type result struct {
	Docs  []map[string]interface{} `json:"docs,omitempty"`
	Error string                   `json:"error,omitempty"`
}

// read reads one file as kubectl does.
func read(path string) (out result) {
	defer func() {
		if p := recover(); p != nil {
			out = result{Error: fmt.Sprintf("panic: %v", p)}
		}
	}()
	f, err := os.Open(path)
	if err != nil {
		return result{Error: err.Error()}
	}
	defer f.Close()
	docs := []map[string]interface{}{}
	d := yaml.NewYAMLOrJSONDecoder(f, 4096)
	for {
		ext := runtime.RawExtension{}
		if err := d.Decode(&ext); err != nil {
			if err == io.EOF {
				break
			}
			return result{Error: err.Error()}
		}
		raw := bytes.TrimSpace(ext.Raw)
		if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
			continue
		}
		var obj map[string]interface{}
		if err := utiljson.Unmarshal(raw, &obj); err != nil {
			return result{Error: err.Error()}
		}
		docs = append(docs, obj)
	}
	return result{Docs: docs}
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		line, err := json.Marshal(read(in.Text()))
		if err != nil {
			line, _ = json.Marshal(result{Error: "the objects do not print as JSON: " + err.Error()})
		}
		out.Write(line)
		out.WriteByte('\n')
	}
}
