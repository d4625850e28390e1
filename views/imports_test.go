package views

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestViewsImportNoDomainPackage checks that the views take view models: no non-test Go
// file of package views imports a services subpackage or jobs. The root package
// seatflow/services (the shared vocabulary: entities, constants, errors) is allowed;
// the handlers copy what the domain packages answer into the views' structs.
func TestViewsImportNoDomainPackage(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(path, "seatflow/services/") || path == "seatflow/jobs" || strings.HasPrefix(path, "seatflow/jobs/") {
				t.Errorf("%s imports %s: give the view a view model the handler builds", name, path)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d files checked: is the test running in the views folder?", checked)
	}
}
