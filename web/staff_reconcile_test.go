package web

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// runReport is the run report of the admin API as a client reads it.
type runReport struct {
	RunID         string  `json:"run_id"`
	Trigger       string  `json:"trigger"`
	DryRun        bool    `json:"dry_run"`
	StartedAt     string  `json:"started_at"`
	FinishedAt    *string `json:"finished_at"`
	Status        string  `json:"status"`
	Fixed         int     `json:"fixed"`
	FindingsCount int     `json:"findings_count"`
	Actor         *struct {
		ID    string `json:"id"`
		Email string `json:"email"`
	} `json:"actor"`
	Findings []struct {
		Kind    string  `json:"kind"`
		ShowID  *string `json:"show_id"`
		SeatID  *string `json:"seat_id"`
		OrderNo *string `json:"order_no"`
		Action  string  `json:"action"`
		Fixed   bool    `json:"fixed"`
	} `json:"findings"`
}

// demoToken signs in the seeded demo account of role through the API and returns its
// bearer token.
func (a *testApp) demoToken(role string) string {
	a.t.Helper()
	acc := a.accounts[role]
	r := a.do("POST", "/api/v1/auth/login", "", map[string]string{"email": acc.Email, "password": acc.Password}, nil)
	if r.status != 200 {
		a.t.Fatalf("login as %s: %d %s", role, r.status, r.body)
	}
	return r.json(a.t)["token"].(string)
}

// decodeReport decodes a 200 run report, checking its times are RFC 3339 UTC.
func decodeReport(t *testing.T, r apiResp) runReport {
	t.Helper()
	var rep runReport
	if r.status != 200 || json.Unmarshal(r.body, &rep) != nil || rep.RunID == "" {
		t.Fatalf("want a run report: %d %s", r.status, r.body)
	}
	for _, ts := range []*string{&rep.StartedAt, rep.FinishedAt} {
		if ts == nil || !strings.HasSuffix(*ts, "Z") {
			t.Fatalf("times not RFC 3339 UTC: %s", r.body)
		}
		if _, err := time.Parse(time.RFC3339, *ts); err != nil {
			t.Fatalf("time %q: %v", *ts, err)
		}
	}
	return rep
}

// runList reads the run history, newest first.
func (a *testApp) runList(t *testing.T, token string) []runReport {
	t.Helper()
	r := a.do("GET", "/api/v1/admin/reconcile/runs", token, nil, nil)
	var v struct{ Runs []runReport }
	if r.status != 200 || json.Unmarshal(r.body, &v) != nil {
		t.Fatalf("runs: %d %s", r.status, r.body)
	}
	return v.Runs
}

// TestAdminReconcile_API drives the reconciliation admin API: roles, dry and real runs,
// bad bodies, an unknown show, and a run that repairs a seat dropped from the cache.
func TestAdminReconcile_API(t *testing.T) {
	a := newTestApp(t, nil)
	tok := map[string]string{"anonymous": ""}
	for _, role := range []string{"customer", "staff", "admin"} {
		tok[role] = a.demoToken(role)
	}
	admin := tok["admin"]
	const runPath = "/api/v1/admin/reconcile"

	dry := decodeReport(t, a.do("POST", runPath, admin, map[string]any{"dry_run": true}, nil))
	t.Run("dry run fixes nothing and is listed", func(t *testing.T) {
		if !dry.DryRun || dry.Fixed != 0 || dry.Trigger != "manual" || dry.Status != "done" ||
			dry.Actor == nil || dry.Actor.Email != a.accounts["admin"].Email {
			t.Errorf("dry run report: %+v", dry)
		}
		for _, f := range dry.Findings {
			if f.Fixed {
				t.Errorf("a dry run fixed %+v", f)
			}
		}
		if runs := a.runList(t, admin); len(runs) == 0 || runs[0].RunID != dry.RunID || !runs[0].DryRun {
			t.Errorf("newest run is not the dry run %s: %+v", dry.RunID, runs)
		}
	})

	t.Run("roles", func(t *testing.T) {
		want := map[string]int{"anonymous": 401, "customer": 403, "staff": 403, "admin": 200}
		codes := map[int]string{401: "UNAUTHENTICATED", 403: "FORBIDDEN", 404: "NOT_FOUND"}
		endpoints := []struct {
			method, path string
			body         any
		}{
			{"POST", runPath, map[string]any{"dry_run": true}},
			{"GET", runPath + "/runs", nil},
			{"GET", runPath + "/runs/" + dry.RunID, nil},
			{"GET", "/api/v1/admin/whatever", nil},
			{"POST", "/api/v1/admin/whatever", map[string]any{}},
		}
		for _, e := range endpoints {
			for _, role := range []string{"anonymous", "customer", "staff", "admin"} {
				t.Run(role+" "+e.method+" "+e.path, func(t *testing.T) {
					st := want[role]
					if strings.HasSuffix(e.path, "/whatever") && st != 401 {
						st = map[string]int{"customer": 403, "staff": 404, "admin": 404}[role]
					}
					r := a.do(e.method, e.path, tok[role], e.body, nil)
					if r.status != st || (st >= 400 && r.code() != codes[st]) {
						t.Errorf("%d %s, want %d %s", r.status, r.body, st, codes[st])
					}
				})
			}
		}
	})

	t.Run("real run is listed and fetchable", func(t *testing.T) {
		rep := decodeReport(t, a.do("POST", runPath, admin, nil, nil))
		if rep.DryRun || rep.Trigger != "manual" || rep.Status != "done" || rep.FindingsCount != len(rep.Findings) {
			t.Errorf("real run report: %+v", rep)
		}
		runs := a.runList(t, admin)
		if len(runs) == 0 || runs[0].RunID != rep.RunID || runs[0].Trigger != "manual" || runs[0].DryRun {
			t.Fatalf("newest run is not %s: %+v", rep.RunID, runs)
		}
		got := decodeReport(t, a.do("GET", runPath+"/runs/"+rep.RunID, admin, nil, nil))
		if got.RunID != rep.RunID || got.Fixed != rep.Fixed || len(got.Findings) != len(rep.Findings) {
			t.Errorf("fetched %+v, ran %+v", got, rep)
		}
		for _, id := range []string{"999999", "abc", "0" + rep.RunID} {
			if r := a.do("GET", runPath+"/runs/"+id, admin, nil, nil); r.status != 404 || r.code() != "NOT_FOUND" {
				t.Errorf("run %s: %d %s, want 404", id, r.status, r.body)
			}
		}
	})

	t.Run("bad requests create no run", func(t *testing.T) {
		before := a.runList(t, admin)[0].RunID
		cases := []struct {
			body string
			st   int
			code string
		}{
			{`{"dry_run":"yes"}`, 400, "INVALID_REQUEST"},
			{`{"show_id":"abc"}`, 400, "INVALID_REQUEST"},
			{`[1]`, 400, "INVALID_REQUEST"},
			{`{"dry_run":true,"shows":"7"}`, 400, "INVALID_REQUEST"},
			{`{"show_id":"999999"}`, 404, "NOT_FOUND"},
			{`{"show_id":999999,"dry_run":true}`, 400, "INVALID_REQUEST"},
			{`{"dry_run":null}`, 400, "INVALID_REQUEST"},
		}
		for _, c := range cases {
			t.Run(c.body, func(t *testing.T) {
				r := a.do("POST", runPath, admin, c.body, nil)
				var e struct {
					Error struct{ Code, Message string }
				}
				if r.status != c.st || json.Unmarshal(r.body, &e) != nil || e.Error.Code != c.code || e.Error.Message == "" {
					t.Errorf("%d %s, want %d %s", r.status, r.body, c.st, c.code)
				}
			})
		}
		if after := a.runList(t, admin)[0].RunID; after != before {
			t.Errorf("newest run went from %s to %s", before, after)
		}
	})

	t.Run("real run repairs a seat dropped from the cache", func(t *testing.T) {
		show, seats := a.onSaleShow(2)
		r := a.do("POST", "/api/v1/shows/"+show+"/orders", a.newUser(), map[string]any{"seat_ids": seats}, nil)
		if r.status != 201 {
			t.Fatalf("order: %d %s", r.status, r.body)
		}
		no := r.json(t)["order_no"].(string)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		// no seat map read until the run: reading the map refills a missing field itself
		key := a.Cfg.KeyPrefix + ":{show:" + show + "}:seats"
		if n, err := a.Redis.HDel(ctx, key, seats[0]).Result(); err != nil || n != 1 {
			t.Fatalf("HDEL seat %s: %d %v", seats[0], n, err)
		}
		rep := decodeReport(t, a.do("POST", runPath, admin, map[string]any{"show_id": show}, nil))
		found := false
		for _, f := range rep.Findings {
			if f.Kind == "live_not_held" && f.SeatID != nil && *f.SeatID == seats[0] {
				found = true
				if !f.Fixed || f.Action != "hold" || f.OrderNo == nil || *f.OrderNo != no || f.ShowID == nil || *f.ShowID != show {
					t.Errorf("finding %+v", f)
				}
			}
		}
		if !found || rep.Fixed < 1 {
			t.Errorf("no fixed live_not_held finding for seat %s: %+v", seats[0], rep)
		}
		if v, err := a.Redis.HGet(ctx, key, seats[0]).Result(); err != nil || !strings.HasPrefix(v, "H|"+no+"|") {
			t.Errorf("seat field after the run: %q %v, want held by %s", v, err, no)
		}
		if st := a.seatState(show, seats[0]); st != "held" {
			t.Errorf("seat %s is %s after the run, want held", seats[0], st)
		}
	})
}

// browserAt returns the browser's location and the text of the element sel.
func browserAt(t *testing.T, ctx context.Context, sel string) (string, string) {
	t.Helper()
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatal(err)
	}
	return loc, text
}

// TestAdminReconcile_Browser signs in as the admin, starts a dry run from the
// reconciliation page, lands on the run's page, then repairs one show with Run now.
func TestAdminReconcile_Browser(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(2)
	if r := a.do("POST", "/api/v1/shows/"+show+"/orders", a.newUser(), map[string]any{"seat_ids": seats}, nil); r.status != 201 {
		t.Fatalf("order: %d %s", r.status, r.body)
	}
	if err := a.Redis.HDel(context.Background(), a.Cfg.KeyPrefix+":{show:"+show+"}:seats", seats[0]).Err(); err != nil {
		t.Fatal(err)
	}
	acc := a.accounts["admin"]
	ctx := newBrowser(t)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/admin/reconcile"),
		chromedp.WaitVisible(css(`#email`)),
		chromedp.SendKeys(css(`#email`), acc.Email),
		chromedp.SendKeys(css(`#password`), acc.Password),
		chromedp.Submit(css(`#password`)),
		chromedp.WaitVisible(css(`form[action="/admin/reconcile"]`)),
	); err != nil {
		t.Fatalf("sign in and open the reconciliation page: %v", err)
	}
	screenshot(t, ctx, "admin-reconcile-empty")
	runURL := regexp.MustCompile(`/admin/reconcile/runs/[0-9]+$`)
	if err := chromedp.Do(ctx,
		chromedp.Click(css(`button[name="mode"][value="dry"]`)),
		chromedp.WaitVisible(css(`.breadcrumb a[href="/admin/reconcile"]`)),
	); err != nil {
		t.Fatalf("dry run: %v", err)
	}
	loc, main := browserAt(t, ctx, `main`)
	screenshot(t, ctx, "admin-reconcile-dry-run")
	if !runURL.MatchString(loc) || !strings.Contains(main, "dry run") || !strings.Contains(main, "live_not_held") {
		t.Errorf("after Dry run: %s\n%s", loc, main)
	}
	if err := chromedp.Do(ctx,
		chromedp.Click(css(`.breadcrumb a`)),
		chromedp.WaitVisible(css(`#show_id`)),
		chromedp.SendKeys(css(`#show_id`), show),
		chromedp.Click(css(`button[name="mode"][value="run"]`)),
		chromedp.WaitVisible(css(`.breadcrumb a[href="/admin/reconcile"]`)),
	); err != nil {
		t.Fatalf("run now: %v", err)
	}
	loc, main = browserAt(t, ctx, `main`)
	screenshot(t, ctx, "admin-reconcile-run")
	if !runURL.MatchString(loc) || !strings.Contains(main, "show "+show) || !strings.Contains(main, "live_not_held") {
		t.Errorf("after Run now: %s\n%s", loc, main)
	}
	if st := a.seatState(show, seats[0]); st != "held" {
		t.Errorf("seat %s is %s after Run now, want held", seats[0], st)
	}
	if err := chromedp.Do(ctx,
		chromedp.Click(css(`.breadcrumb a`)),
		chromedp.WaitVisible(css(`table.data-table`)),
	); err != nil {
		t.Fatalf("history: %v", err)
	}
	_, main = browserAt(t, ctx, `table.data-table tbody`)
	screenshot(t, ctx, "admin-reconcile-history")
	if rows := strings.Count(main, acc.Email); rows != 2 {
		t.Errorf("history lists %d runs by %s, want 2:\n%s", rows, acc.Email, main)
	}
}
