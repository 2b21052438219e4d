// Prints knative.dev/pkg's kmeta.ChildName for each "parent<TAB>suffix" line of stdin, one
// name a line: the integration suite compares the port in ../names.rs with it.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"knative.dev/pkg/kmeta"
)

func main() {
	scanner := bufio.NewScanner(os.Stdin)
	for scanner.Scan() {
		parent, suffix, _ := strings.Cut(scanner.Text(), "\t")
		fmt.Println(kmeta.ChildName(parent, suffix))
	}
	if err := scanner.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
