package store_test

import (
	"go/ast"
	"go/token"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// updateOf finds the start of an UPDATE of orders or order_seats (with or without an
// alias and joins); statusSet and liveSet find the column each may not change outside
// the one door, in the SET clause that follows.
var (
	updateOf  = regexp.MustCompile(`\bUPDATE\s+(orders|order_seats)\b`)
	setClause = regexp.MustCompile(`\bSET\b`)
	whereEnd  = regexp.MustCompile(`\bWHERE\b`)
	statusSet = regexp.MustCompile(`(^|[\s,.])status\s*=`)
	liveSet   = regexp.MustCompile(`(^|[\s,.])live\s*=`)
)

// changesOrderState reports whether sql (the string literals of one function or
// declaration, joined) updates orders.status or order_seats.live.
func changesOrderState(sql string) bool {
	for _, m := range updateOf.FindAllStringSubmatchIndex(sql, -1) {
		table := sql[m[2]:m[3]]
		rest := sql[m[1]:]
		set := setClause.FindStringIndex(rest)
		if set == nil {
			continue
		}
		clause := rest[set[1]:]
		if next := updateOf.FindStringIndex(clause); next != nil {
			clause = clause[:next[0]]
		}
		if w := whereEnd.FindStringIndex(clause); w != nil {
			clause = clause[:w[0]]
		}
		if table == "orders" && statusSet.MatchString(clause) || table == "order_seats" && liveSet.MatchString(clause) {
			return true
		}
	}
	return false
}

func TestChangesOrderState(t *testing.T) {
	for sql, want := range map[string]bool{
		"UPDATE orders SET status = ?, cancelled_at = ? WHERE id = ?":                                 true,
		"UPDATE orders o JOIN shows sh ON sh.id = o.show_id SET o.status = 'paid' WHERE o.id = ?":     true,
		"UPDATE order_seats SET live = NULL WHERE order_id = ?":                                       true,
		"UPDATE orders SET admitted_at = ?, admitted_by = ? WHERE id = ? AND status = 'paid'":         false,
		"UPDATE payments SET status = 'refunded' WHERE order_id = ?":                                  false,
		"UPDATE orders_archive SET status = ? WHERE id = ?":                                           false,
		"SELECT o.order_no FROM order_seats os JOIN orders o ON o.id = os.order_id WHERE os.live = 1": false,
	} {
		if got := changesOrderState(sql); got != want {
			t.Errorf("changesOrderState(%q) = %v, want %v", sql, got, want)
		}
	}
}

// TestOrderStatusHasOneDoor fails unless exactly two functions of the repository's
// non-test Go files hold SQL that updates orders.status or order_seats.live: the
// storage layer's UpdateOrderStatus, which only orders.Transition calls ("one
// door for order state"), and MoveOrderSeat beside it, which only orders.Exchange
// calls: it moves a live order's seat to another seat and leaves its status. The string literals of each function (or top-level
// declaration) are read together, so a statement built from pieces is found too.
func TestOrderStatusHasOneDoor(t *testing.T) {
	var doors []string
	eachSourceFile(t, func(string) bool { return false }, func(rel string, f *ast.File) {
		for _, decl := range f.Decls {
			if changesOrderState(literals(decl)) {
				doors = append(doors, rel+": "+declName(decl))
			}
		}
	})
	sort.Strings(doors)
	want := []string{"services/store/order_status.go: MoveOrderSeat", "services/store/order_status.go: UpdateOrderStatus"}
	if strings.Join(doors, "\n") != strings.Join(want, "\n") {
		t.Errorf("the functions that update orders.status or order_seats.live are %q; want only %q", doors, want)
	}
}

// literals returns the string literals of n, unquoted and joined by spaces.
func literals(n ast.Node) string {
	var b strings.Builder
	ast.Inspect(n, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil {
				b.WriteString(s)
				b.WriteByte(' ')
			}
		}
		return true
	})
	return b.String()
}

// declName names a top-level declaration: a function or method, or its first name.
func declName(d ast.Decl) string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		return d.Name.Name
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.ValueSpec:
				return s.Names[0].Name
			case *ast.TypeSpec:
				return s.Name.Name
			}
		}
	}
	return "?"
}
