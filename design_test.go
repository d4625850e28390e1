package main

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// designMaxLines is the most lines DESIGN.md may have: an introduction a newcomer reads
// in an hour, with the detail left to the code and the tests it names.
const designMaxLines = 450

// plannedNames are names and paths DESIGN.md may describe before the code has them
// (a change written design-first); the test accepts them while they do not exist and
// fails once one does, so that its entry is removed. Empty when design and code agree.
var plannedNames = map[string]bool{}

// libraryQualifiers are the qualifiers of names that belong to the libraries seatflow
// uses, not to its own code (`asynq.TaskID`, `redis.UniversalClient`); such names are
// not checked.
var libraryQualifiers = map[string]bool{
	"asynq": true, "redis": true, "sqlx": true, "sql": true, "cron": true, "fiber": true,
	"templ": true, "porcupine": true, "redis_rate": true, "time": true, "context": true,
}

// The shapes of a backticked span that DESIGN.md's test checks. A span is:
//   - a Go name when it is one identifier or identifiers joined by dots, optionally
//     followed by "()" or an argument list, and holds an upper-case letter but is not
//     all upper case: `Orders.Create`, `seats.Listing`, `persistBatch`,
//     `TestInvariant1_ThousandRequestsOneSeat`. All-lower-case spans (`live`,
//     `order_seats.live`, `on_sale`) are columns, JSON fields or words, and all-upper-case
//     ones (`SEAT_TAKEN`, `F`, `HSET`, `SEATFLOW_HOLD_MINUTES`) are error codes, seat
//     values, Redis commands and settings: neither is checked;
//   - a repo path when it has only letters, digits and "_-./*" (no space, colon, brace
//     or angle bracket), does not start with "/" (a URL path) and either holds a "/" or
//     ends in a file extension: `services/orders/create.go`, `lua/`, `lua/hold.lua`. It
//     must exist from the repo root or below services/ (`orders/orders.go`);
//   - anything else (SQL, Redis keys such as `sf:{show:N}:seats`, commands such as
//     `make test`, JSON) is prose and not checked.
var (
	goNameShape = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*(\([^()]*\))?$`)
	pathShape   = regexp.MustCompile(`^[A-Za-z0-9_.*-][A-Za-z0-9_./*-]*$`)
	fileExt     = regexp.MustCompile(`\.(go|lua|js|css|templ|md|sql|json|yml|yaml|env)$`)
	span        = regexp.MustCompile("`([^`\n]+)`")
)

// declared is what the repo's Go files declare: every name (types, funcs, methods,
// consts, vars, fields, interface methods, package names), the package-level names of
// each package, and the methods and fields of each type by type name.
type declared struct {
	any      map[string]bool
	packages map[string]map[string]bool
	members  map[string]map[string]bool
	embeds   map[string][]string
}

func (d *declared) add(m map[string]map[string]bool, key, name string) {
	if m[key] == nil {
		m[key] = map[string]bool{}
	}
	m[key][name] = true
	d.any[name] = true
}

// typeName is the name of a receiver or embedded type: T, *T, T[X], pkg.T.
func typeName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.StarExpr:
		return typeName(x.X)
	case *ast.IndexExpr:
		return typeName(x.X)
	case *ast.IndexListExpr:
		return typeName(x.X)
	case *ast.SelectorExpr:
		return x.Sel.Name
	}
	return ""
}

// collectDeclared parses every Go file under root (tests included; hidden folders,
// node_modules and testdata left out).
func collectDeclared(t *testing.T, root string) *declared {
	d := &declared{any: map[string]bool{}, packages: map[string]map[string]bool{},
		members: map[string]map[string]bool{}, embeds: map[string][]string{}}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if path != root && (strings.HasPrefix(e.Name(), ".") || e.Name() == "node_modules" || e.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := f.Name.Name
		d.add(d.packages, pkg, pkg)
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok {
				if fn.Recv != nil && len(fn.Recv.List) == 1 {
					d.add(d.members, typeName(fn.Recv.List[0].Type), fn.Name.Name)
				} else {
					d.add(d.packages, pkg, fn.Name.Name)
				}
			}
			if gd, ok := decl.(*ast.GenDecl); ok {
				for _, s := range gd.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						d.add(d.packages, pkg, s.Name.Name)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							d.add(d.packages, pkg, n.Name)
						}
					}
				}
			}
		}
		// Types anywhere (also inside functions): their fields, interface methods and
		// embedded types; local consts and vars count as declared names.
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.TypeSpec:
				d.any[n.Name.Name] = true
				var fields *ast.FieldList
				switch ty := n.Type.(type) {
				case *ast.StructType:
					fields = ty.Fields
				case *ast.InterfaceType:
					fields = ty.Methods
				}
				if fields == nil {
					return true
				}
				for _, fl := range fields.List {
					if len(fl.Names) == 0 {
						d.embeds[n.Name.Name] = append(d.embeds[n.Name.Name], typeName(fl.Type))
						d.add(d.members, n.Name.Name, typeName(fl.Type))
					}
					for _, name := range fl.Names {
						d.add(d.members, n.Name.Name, name.Name)
					}
				}
			case *ast.ValueSpec:
				for _, name := range n.Names {
					d.any[name.Name] = true
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// hasMember says whether type typ declares name, directly or through an embedded type.
func (d *declared) hasMember(typ, name string, seen map[string]bool) bool {
	if seen[typ] {
		return false
	}
	seen[typ] = true
	if d.members[typ][name] {
		return true
	}
	for _, e := range d.embeds[typ] {
		if d.hasMember(e, name, seen) {
			return true
		}
	}
	return false
}

// checkName says why a Go-name span names nothing in the repo, or "" when it does:
// `X.Y` needs Y in package X or among type X's methods and fields; longer chains check
// their first pair that way and every later part as a name declared somewhere.
func (d *declared) checkName(name string) string {
	if i := strings.IndexByte(name, '('); i >= 0 {
		name = name[:i]
	}
	parts := strings.Split(name, ".")
	if len(parts) == 1 {
		if !d.any[name] {
			return "no Go declaration of " + name
		}
		return ""
	}
	q, m := parts[0], parts[1]
	switch {
	case libraryQualifiers[q]:
		return ""
	case d.packages[q] != nil && q == strings.ToLower(q):
		if !d.packages[q][m] {
			return "package " + q + " declares no " + m
		}
	case d.members[q] != nil || d.any[q]:
		if !d.hasMember(q, m, map[string]bool{}) {
			return "type " + q + " has no method or field " + m
		}
	default:
		return "no package or type " + q
	}
	for _, p := range parts[2:] {
		if !d.any[p] {
			return "no Go declaration of " + p
		}
	}
	return ""
}

// isGoName and isPath classify a span by its shape (see goNameShape and pathShape).
func isGoName(s string) bool {
	return goNameShape.MatchString(s) && strings.ToLower(s) != s && strings.ToUpper(s) != s
}

func isPath(s string) bool {
	return pathShape.MatchString(s) && !strings.HasPrefix(s, "/") &&
		(strings.Contains(s, "/") || fileExt.MatchString(s))
}

// pathExists looks for a repo path from the root, then below services/; a "*" is a
// glob that must match at least one file.
func pathExists(root, p string) bool {
	for _, base := range []string{root, filepath.Join(root, "services")} {
		full := filepath.Join(base, filepath.FromSlash(p))
		if strings.Contains(p, "*") {
			if m, _ := filepath.Glob(full); len(m) > 0 {
				return true
			}
			continue
		}
		if _, err := os.Stat(full); err == nil {
			return true
		}
	}
	return false
}

// designSpans returns DESIGN.md's backticked spans outside fenced code blocks, each
// with its line number, and the number of lines.
func designSpans(t *testing.T) (spans map[string]int, lines int) {
	f, err := os.Open("DESIGN.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	spans = map[string]int{}
	fenced := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines++
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range span.FindAllStringSubmatch(line, -1) {
			if _, ok := spans[m[1]]; !ok {
				spans[m[1]] = lines
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return spans, lines
}

// TestDesign_NamesExist keeps DESIGN.md true to the code: every Go identifier and every
// repo path it names in backticks exists (the shapes are described at goNameShape), and
// it stays at most designMaxLines lines.
func TestDesign_NamesExist(t *testing.T) {
	spans, lines := designSpans(t)
	if lines > designMaxLines {
		t.Errorf("DESIGN.md has %d lines, at most %d", lines, designMaxLines)
	}
	d := collectDeclared(t, ".")
	var bad []string
	for s, line := range spans {
		why := ""
		switch {
		case isGoName(s):
			why = d.checkName(s)
		case isPath(s):
			if !pathExists(".", s) {
				why = "no such file or folder"
			}
		default:
			continue
		}
		switch {
		case plannedNames[s] && why == "":
			bad = append(bad, "DESIGN.md:"+strconv.Itoa(line)+": `"+s+"` exists now: remove it from plannedNames")
		case why != "" && !plannedNames[s]:
			bad = append(bad, "DESIGN.md:"+strconv.Itoa(line)+": `"+s+"`: "+why)
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
}

// TestDesign_Shapes pins the span classification that TestDesign_NamesExist relies on.
func TestDesign_Shapes(t *testing.T) {
	names := []string{"Orders.Create", "seats.Listing", "persistBatch", "lua.Scripts()", "Show.OnSaleAt(now)", "TestInvariant1_ThousandRequestsOneSeat"}
	paths := []string{"services/orders/create.go", "lua/", "lua/hold.lua", "localtime.go", "web/*_browser_test.go"}
	prose := []string{"live", "order_seats.live", "SEAT_TAKEN", "F", "SEATFLOW_HOLD_MINUTES", "sf:{show:N}:seats", "make test",
		"H|<order_no>|<user_id>", "/admin/mailbox", "GET /api/v1/shows/{id}/seats", "expire:<order_no>", "rows × cols"}
	for _, s := range names {
		if !isGoName(s) {
			t.Errorf("%q should be a Go name", s)
		}
	}
	for _, s := range paths {
		if isGoName(s) || !isPath(s) {
			t.Errorf("%q should be a path", s)
		}
	}
	for _, s := range prose {
		if isGoName(s) || isPath(s) {
			t.Errorf("%q should be prose", s)
		}
	}
}
