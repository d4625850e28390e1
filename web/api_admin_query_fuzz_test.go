package web

import (
	"encoding/json"
	"math/rand/v2"
	"net/url"
	"sort"
	"strings"
	"testing"

	"seatflow/handlers"
)

// adminGetOp is one GET operation under /api/v1/admin as the OpenAPI document names it:
// its path template, its query parameters and its path parameters.
type adminGetOp struct {
	path       string
	query      []string
	pathParams []string
}

// adminGetOps reads every GET operation under /api/v1/admin from handlers/openapi.json,
// sorted by path.
func adminGetOps(t *testing.T) []adminGetOp {
	t.Helper()
	type param struct{ Name, In string }
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(handlers.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	var ops []adminGetOp
	for p, item := range doc.Paths {
		raw, ok := item["get"]
		if !ok || !strings.HasPrefix(p, "/api/v1/admin/") {
			continue
		}
		var op struct{ Parameters []param }
		if err := json.Unmarshal(raw, &op); err != nil {
			t.Fatal(err)
		}
		var shared []param
		if r, ok := item["parameters"]; ok {
			_ = json.Unmarshal(r, &shared)
		}
		g := adminGetOp{path: p}
		for _, pr := range append(shared, op.Parameters...) {
			switch pr.In {
			case "query":
				g.query = append(g.query, pr.Name)
			case "path":
				g.pathParams = append(g.pathParams, pr.Name)
			}
		}
		ops = append(ops, g)
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].path < ops[j].path })
	return ops
}

// hostileInputs are the values every admin query parameter is sent: the findings of
// an outside client (a non-ASCII order number, full-width digits typed with a Chinese
// input method), control characters, SQL and LIKE metacharacters, the empty value,
// huge values, invalid UTF-8, and n deterministic random strings mixing all of those.
func hostileInputs(n int) []string {
	in := []string{
		"", " ", "é", "１２３", "０ＭＸ３ＯＢＥＡＤＩＮＺＨＴＹ", "😀", "👨‍👩‍👧", "选座购票", "\x00", "a\x00b",
		"\x0b", "\x1b[31m", "\x7f", "\u0085", "\u2028", "\u202e", "\ufeff", "\xff\xfe", "\xc3",
		"' OR '1'='1", "%", "_", "\\", "%25", "--", "1; DROP TABLE orders", "0", "-1", "1e3", "00",
		"99999999999999999999", "NaN", "null", "[]", "{}", "2026-02-30", "２０２６-１２-０１",
		strings.Repeat("é", 5000), strings.Repeat("9", 10<<10), strings.Repeat("\x00", 1000),
	}
	pools := [][]rune{
		[]rune("abcXYZ0123456789-_.@+ "),
		[]rune("'\"%_\\;`()*=<>|&#?/"),
		{0, 1, 8, 9, 10, 11, 12, 13, 27, 31, 127, 0x85, 0x2028, 0x2029, 0x202e, 0x200b, 0xfeff},
		[]rune("éüßøÅΩЖ选座购票日本"),
		[]rune("０１２３４５６７８９ＡＢＣ＠．"),
		{0x1f600, 0x1f3ac, 0x1f468, 0x200d, 0xfe0f, 0x10ffff, 0xfffd},
	}
	r := rand.New(rand.NewPCG(27, 6))
	for i := 0; i < n; i++ {
		size := r.IntN(40)
		if r.IntN(10) == 0 {
			size = 500 + r.IntN(3000)
		}
		var b strings.Builder
		for j := 0; j < size; j++ {
			p := pools[r.IntN(len(pools))]
			b.WriteRune(p[r.IntN(len(p))])
		}
		if r.IntN(8) == 0 {
			b.WriteByte(0x80 + byte(r.IntN(0x40))) // a lone continuation byte: not UTF-8
		}
		in = append(in, b.String())
	}
	return in
}

// TestAdminQueries_HostileInputsNeverFail is a schemathesis-style pass over the admin
// API: every GET operation under /api/v1/admin in the OpenAPI document gets each of
// hostileInputs in each of its query parameters (alone), and in each path parameter
// the document leaves free text (order numbers). Every answer must be below 500 and
// agree with the document (send checks its status, content type and body against
// handlers/openapi.json, and that a request the document calls invalid is refused); a
// 4xx must carry the contract's error shape.
func TestAdminQueries_HostileInputsNeverFail(t *testing.T) {
	a := newTestApp(t, nil)
	admin := a.demoToken("admin")
	show, _ := a.onSaleShow(1)
	samples := map[string]string{"id": show, "run_id": "1", "order_no": "NOSUCHORDER000",
		"ref": "SF1.NOPE.AAAAAAAAAAAAAAAAAAAAAA"}
	inputs := hostileInputs(40)
	check := func(path string, r apiResp) {
		t.Helper()
		if r.status >= 500 {
			t.Errorf("GET %.200s: %d %.300s", path, r.status, r.body)
			return
		}
		if r.status >= 400 {
			var e struct {
				Error struct{ Code, Message string } `json:"error"`
			}
			if json.Unmarshal(r.body, &e) != nil || e.Error.Code == "" || e.Error.Message == "" {
				t.Errorf("GET %.200s: %d without the contract's error shape: %.300s", path, r.status, r.body)
			}
		}
	}
	ops := adminGetOps(t)
	if len(ops) < 10 {
		t.Fatalf("only %d admin GET operations in the document", len(ops))
	}
	sent := 0
	for _, op := range ops {
		base := op.path
		for _, p := range op.pathParams {
			base = strings.ReplaceAll(base, "{"+p+"}", samples[p])
		}
		for _, q := range op.query {
			for _, v := range inputs {
				path := base + "?" + url.Values{q: {v}}.Encode()
				check(path, a.do("GET", path, admin, nil, nil))
				sent++
			}
		}
		for _, p := range op.pathParams {
			if p != "order_no" {
				continue // ids and ticket references have a pattern: anything else is 404
			}
			for _, v := range inputs {
				if v == "" {
					continue
				}
				path := strings.ReplaceAll(op.path, "{"+p+"}", url.PathEscape(v))
				for _, o := range op.pathParams {
					path = strings.ReplaceAll(path, "{"+o+"}", samples[o])
				}
				check(path, a.do("GET", path, admin, nil, nil))
				sent++
			}
		}
	}
	t.Logf("%d requests over %d operations", sent, len(ops))
}

// TestQueries_EmptyTypedValuesRefused: a query parameter the OpenAPI document types (a
// date, a number, an id, an enum) sent empty or padded with white space is 400, as the
// document says, not the answer for the parameter left out (?date= listed today's
// shows); left out, it still means its default.
func TestQueries_EmptyTypedValuesRefused(t *testing.T) {
	a := newTestApp(t, nil)
	admin := a.demoToken("admin")
	for _, p := range []string{
		"/api/v1/shows?date=", "/api/v1/shows?date", "/api/v1/shows?date=+", "/api/v1/shows?date=%0B",
		"/api/v1/admin/orders?limit=", "/api/v1/admin/orders?show_id=", "/api/v1/admin/orders?status=",
		"/api/v1/admin/audit?from=", "/api/v1/admin/audit?to=+", "/api/v1/admin/audit?before_id=", "/api/v1/admin/audit?limit=",
		"/api/v1/admin/audit?from=%202026-12-01",
		"/api/v1/admin/users?role=", "/api/v1/admin/users?limit=", "/api/v1/admin/reconcile/runs?limit=",
	} {
		if r := a.do("GET", p, admin, nil, nil); r.status != 400 || r.code() != "INVALID_REQUEST" {
			t.Errorf("GET %s: %d %.300s, want 400 INVALID_REQUEST", p, r.status, r.body)
		}
	}
	for _, p := range []string{"/api/v1/shows", "/api/v1/shows?date=" + a.localDate(1), "/api/v1/admin/orders", "/api/v1/admin/audit",
		"/api/v1/admin/users", "/api/v1/admin/reconcile/runs", "/api/v1/admin/orders?order_no=&email="} {
		if r := a.do("GET", p, admin, nil, nil); r.status != 200 {
			t.Errorf("GET %s: %d %.300s, want 200", p, r.status, r.body)
		}
	}
}
