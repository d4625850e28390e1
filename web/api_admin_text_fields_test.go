package web

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// refusedChars are the characters no staff text field takes (services.CheckText): C0
// and C1 controls (a vertical tab or form feed in a title reached the calendar file raw),
// the line separator, and a bidirectional override that shows a title backwards.
var refusedChars = map[string]string{
	"NUL": "\x00", "VT": "\x0b", "FF": "\x0c", "ESC": "\x1b", "DEL": "\x7f",
	"NEL": "\u0085", "LS": "\u2028", "RLO": "\u202e", "LF": "\n",
}

// newestAudit is the id of the newest audit entry ("" when there is none): every staff
// write is audited in its own transaction, so an unchanged id means nothing was written.
func (a *testApp) newestAudit(token string) string {
	a.t.Helper()
	var v struct{ Entries []struct{ ID string } }
	json.Unmarshal(a.do("GET", "/api/v1/admin/audit?limit=1", token, nil, nil).body, &v)
	if len(v.Entries) == 0 {
		return ""
	}
	return v.Entries[0].ID
}

// TestAdminTextFields_ControlCharactersRefused sends each refused character inside
// every staff text field of the admin API (movie titles, hall names and layouts,
// reasons of cancellations, refunds, releases and house seats) and of registration (a
// user's name): each answer is 400 INVALID_REQUEST whose message names the field, and
// nothing is written (the audit log does not move).
func TestAdminTextFields_ControlCharactersRefused(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	show, seats := a.onSaleShow(1)
	var movies struct{ Movies []struct{ ID string } }
	json.Unmarshal(a.do("GET", "/api/v1/admin/movies", staff, nil, nil).body, &movies)
	hall := a.hallOfShow(show)
	if len(movies.Movies) == 0 || hall == "" {
		t.Fatal("no movie or hall in the demo cinema")
	}
	movie := movies.Movies[0].ID

	type field struct {
		name, method, path, field string
		body                      func(v string) map[string]any
	}
	fields := []field{
		{"movie title (create)", "POST", "/api/v1/admin/movies", "title", func(v string) map[string]any {
			return map[string]any{"title": "Arrival " + v + " Two", "runtime_min": 100}
		}},
		{"movie title (change)", "PATCH", "/api/v1/admin/movies/" + movie, "title", func(v string) map[string]any { return map[string]any{"title": "Arrival " + v + " Two"} }},
		{"hall name (create)", "POST", "/api/v1/admin/halls", "name", func(v string) map[string]any {
			return map[string]any{"name": "Studio " + v + " 9", "layout": "SSSS\nSSSS"}
		}},
		{"hall name (change)", "PATCH", "/api/v1/admin/halls/" + hall, "name", func(v string) map[string]any { return map[string]any{"name": "Studio " + v + " 9"} }},
		{"hall layout (create)", "POST", "/api/v1/admin/halls", "layout", func(v string) map[string]any {
			return map[string]any{"name": "Studio Nine", "layout": "SSSS\nSS" + v + "SS"}
		}},
		{"show cancel reason", "POST", "/api/v1/admin/shows/" + show + "/cancel", "reason", func(v string) map[string]any { return map[string]any{"reason": "projector " + v + " fault"} }},
		{"refund reason", "POST", "/api/v1/admin/orders/NOSUCHORDER/refund", "reason", func(v string) map[string]any { return map[string]any{"reason": "buyer " + v + " ill"} }},
		{"house seats reason", "POST", "/api/v1/admin/shows/" + show + "/house-seats", "reason", func(v string) map[string]any {
			return map[string]any{"seat_ids": seats, "reason": "press " + v + " row"}
		}},
		{"house seats unblock reason", "POST", "/api/v1/admin/shows/" + show + "/house-seats/unblock", "reason", func(v string) map[string]any {
			return map[string]any{"seat_ids": seats, "reason": "press " + v + " row"}
		}},
		{"release reason", "POST", "/api/v1/admin/shows/" + show + "/seats/" + seats[0] + "/release", "reason", func(v string) map[string]any {
			return map[string]any{"order_no": "NOSUCHORDER", "reason": "left " + v + " early"}
		}},
		{"user name (register)", "POST", "/api/v1/auth/register", "name", func(v string) map[string]any {
			return map[string]any{"email": fmt.Sprintf("ctl%d@example.test", userSeq.Add(1)), "password": "password-123", "name": "Ana " + v + " Li"}
		}},
	}
	before := a.newestAudit(staff)
	for _, f := range fields {
		for cname, c := range refusedChars {
			if c == "\n" && f.field == "layout" {
				continue // a layout is one line per row
			}
			t.Run(f.name+"/"+cname, func(t *testing.T) {
				tok := staff
				if strings.HasPrefix(f.path, "/api/v1/auth/") {
					tok = ""
				}
				r := a.do(f.method, f.path, tok, f.body(c), nil)
				var e struct {
					Error struct{ Code, Message string }
				}
				json.Unmarshal(r.body, &e)
				if r.status != 400 || e.Error.Code != "INVALID_REQUEST" || !strings.HasPrefix(e.Error.Message, f.field) {
					t.Errorf("%s %s with %s in %s: %d %s, want 400 INVALID_REQUEST naming %q", f.method, f.path, cname, f.field, r.status, r.body, f.field)
				}
			})
		}
	}
	if after := a.newestAudit(staff); after != before {
		t.Errorf("the audit log moved from %q to %q: a refused request wrote something", before, after)
	}
	if s := a.do("GET", "/api/v1/shows/"+show, "", nil, nil).json(t); s["status"] == "cancelled" {
		t.Error("the show was cancelled by a refused request")
	}

	// the console's forms take the same fields through the same checks
	for _, tc := range []struct{ page, action, field string }{
		{"/admin/movies", "/admin/movies", "title"},
		{"/admin/halls/new", "/admin/halls", "name"},
		{"/admin/shows/" + show + "/cancel", "/admin/shows/" + show + "/cancel", "reason"},
	} {
		vals := url.Values{tc.field: {"Bad\x0bText"}, "runtime_min": {"100"}, "layout": {"SSSS"}, "numbering": {"ltr"}, "confirm": {"yes"}}
		r := a.postPage(tc.page, tc.action, staff, vals)
		if r.status != 400 || !strings.Contains(string(r.body), "U+000B") {
			t.Errorf("console %s with a vertical tab in %s: %d, want 400 naming the character", tc.action, tc.field, r.status)
		}
	}
	if after := a.newestAudit(staff); after != before {
		t.Errorf("the audit log moved from %q to %q: a refused form wrote something", before, after)
	}

	// allowed: letters of any script, emoji, a right-to-left mark
	r := a.do("POST", "/api/v1/admin/movies", staff, map[string]any{"title": "千与千寻 🎬 שלום\u200f", "runtime_min": 125}, nil)
	if r.status != 201 {
		t.Errorf("a title in Chinese and Hebrew with an emoji: %d %s", r.status, r.body)
	}
}
