package handlers

import (
	"fmt"
	"testing"
	"time"

	"seatflow/views"
)

// TestAuditDiff_ReadableChanges: the audit page lists only the fields a write changed,
// old → new, with "—" for a field absent on one side, times in the cinema's zone, lists
// joined, null as "none", and JSON that is not an object shown whole.
func TestAuditDiff_ReadableChanges(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name          string
		before, after string
		want          []views.DiffRow
	}{
		{"changed field only", `{"id":"7","role":"customer"}`, `{"id":"7","role":"staff"}`,
			[]views.DiffRow{{Field: "role", Old: "customer", New: "staff"}}},
		{"created", "", `{"title":"X","runtime_min":90}`,
			[]views.DiffRow{{Field: "runtime min", Old: "—", New: "90"}, {Field: "title", Old: "—", New: "X"}}},
		{"removed", `{"title":"X"}`, "null",
			[]views.DiffRow{{Field: "title", Old: "X", New: "—"}}},
		{"time in the cinema's zone", `{"paid_at":null}`, `{"paid_at":"2026-11-30T18:45:05Z"}`,
			[]views.DiffRow{{Field: "paid at", Old: "none", New: "Tue 1 Dec, 02:45:05"}}},
		{"lists and key order", `{"seats":["A1","A2"],"x":{"b":1,"a":2}}`, `{"x":{"b":1, "a":2},"seats":[]}`,
			[]views.DiffRow{{Field: "seats", Old: "A1, A2", New: "none"}}},
		{"nothing changed", `{"a":1}`, `{"a":1}`, nil},
		{"not an object", `[1,2]`, `{"a":1}`, []views.DiffRow{{Field: "value", Old: "[1,2]", New: `{"a":1}`}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b, a []byte
			if c.before != "" {
				b = []byte(c.before)
			}
			if c.after != "" {
				a = []byte(c.after)
			}
			got := views.AuditDiff(b, a, shanghai)
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}
