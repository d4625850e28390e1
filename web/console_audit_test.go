package web

import (
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

var entryRow = regexp.MustCompile(`<tr id="entry-([0-9]+)">`)

// entryIDs lists the audit entry ids an audit page shows, in page order.
func entryIDs(body []byte) []string {
	var out []string
	for _, m := range entryRow.FindAllSubmatch(body, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// olderLink is the audit page's "Older entries" link, "" when there is none.
func olderLink(body []byte) string {
	m := regexp.MustCompile(`<a class="button" rel="next" href="([^"]+)"`).FindSubmatch(body)
	if m == nil {
		return ""
	}
	return html.UnescapeString(string(m[1]))
}

// TestAdminAuditPage_FiltersAndPaging: staff read the audit log filtered by action,
// entity, actor (another case) and local dates, newest first, page by page through the
// "Older entries" link (keeping the filter) until the last page; bad filters are 400
// with the message and the form kept; the JSON API pages the same way.
func TestAdminAuditPage_FiltersAndPaging(t *testing.T) {
	a := newTestApp(t, nil)
	// one instant for the whole test: the entries' stamps and the "today" the filters
	// take fall on one local day even when the test runs across the cinema's midnight
	a.clock.Freeze()
	admin, staff := a.demoToken("admin"), a.demoToken("staff")
	var ids []string
	for i := 0; i < 3; i++ {
		_, uid := a.registerAs(fmt.Sprintf("audit%d-%s@example.test", i, a.clock.Now().Format("150405.000000")))
		for _, role := range []string{"staff", "customer"} {
			if r := a.do("PATCH", "/api/v1/admin/users/"+uid, admin, map[string]string{"role": role}, nil); r.status != 200 {
				t.Fatalf("role: %d %s", r.status, r.body)
			}
		}
		ids = append(ids, uid)
	}
	// 6 role changes, newest first: ids[2] staff->customer, ids[2] customer->staff, ...
	filter := "action=user.role&entity=user"
	var all []string
	next := "/admin/audit?" + filter + "&limit=4"
	for pages := 0; next != ""; pages++ {
		if pages > 3 {
			t.Fatalf("paging does not end: %s", next)
		}
		r := a.getPage(next, staff)
		if r.status != 200 {
			t.Fatalf("GET %s: %d", next, r.status)
		}
		all = append(all, entryIDs(r.body)...)
		next = olderLink(r.body)
		if next != "" && (!strings.Contains(next, "action=user.role") || !strings.Contains(next, "limit=4") || !strings.Contains(next, "before_id=")) {
			t.Errorf("older link %q lost the filter", next)
		}
		if pages == 1 && !strings.Contains(string(r.body), `>Newest</a>`) {
			t.Errorf("the second page has no link back to the newest entries")
		}
	}
	if len(all) != 6 {
		t.Fatalf("pages showed %d entries, want 6: %v", len(all), all)
	}
	for i := 1; i < len(all); i++ {
		var prev, cur int
		fmt.Sscan(all[i-1], &prev)
		fmt.Sscan(all[i], &cur)
		if cur >= prev {
			t.Errorf("not newest first: %v", all)
		}
	}

	zone := a.Cfg.Location()
	today := a.clock.Now().In(zone).Format("2006-01-02")
	tomorrow := a.clock.Now().In(zone).AddDate(0, 0, 1).Format("2006-01-02")
	yesterday := a.clock.Now().In(zone).AddDate(0, 0, -1).Format("2006-01-02")
	cases := []struct {
		name, query string
		want        int
	}{
		{"one user", "entity=user&entity_id=" + ids[0], 2},
		{"actor in another case", filter + "&actor=" + url.QueryEscape(strings.ToUpper(a.accounts["admin"].Email)), 6},
		{"another actor", filter + "&actor=" + url.QueryEscape(a.accounts["staff"].Email), 0},
		{"today (local)", filter + "&from=" + today + "&to=" + today, 6},
		{"from tomorrow", filter + "&from=" + tomorrow, 0},
		{"up to yesterday", filter + "&to=" + yesterday, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := a.getPage("/admin/audit?"+c.query, staff)
			if got := len(entryIDs(r.body)); r.status != 200 || got != c.want {
				t.Errorf("%d, %d entries, want %d", r.status, got, c.want)
			}
		})
	}
	for _, bad := range []struct{ query, msg string }{
		{"from=30-11-2026", "From must be a date"},
		{"from=" + tomorrow + "&to=" + today, "The from date must not be after the to date"},
		{"limit=0", "Limit must be a whole number"},
		{"before_id=x", "The paging cursor before_id must be the id"},
		{"actor=nobody", "is not a usable email address"},
	} {
		r := a.getPage("/admin/audit?"+bad.query, staff)
		if r.status != 400 || !strings.Contains(string(r.body), bad.msg) {
			t.Errorf("%s: %d %s, want 400 saying %q", bad.query, r.status, alertOf(r.body), bad.msg)
		}
	}
	if r := a.getPage("/admin/audit?from=30-11-2026", staff); !strings.Contains(string(r.body), `value="30-11-2026"`) {
		t.Errorf("the form lost the typed date")
	}

	t.Run("API pages by next_before_id", func(t *testing.T) {
		var got []string
		q := "/api/v1/admin/audit?" + filter + "&limit=4"
		for q != "" {
			r := a.do("GET", q, staff, nil, nil)
			var v struct {
				Entries []struct {
					ID, Action, Entity string
					EntityID           string `json:"entity_id"`
					Actor              *struct{ Email string }
					Before, After      map[string]string
					CreatedAt          string `json:"created_at"`
				}
				NextBeforeID string `json:"next_before_id"`
			}
			if r.status != 200 || json.Unmarshal(r.body, &v) != nil {
				t.Fatalf("%s: %d %s", q, r.status, r.body)
			}
			for _, e := range v.Entries {
				if e.Actor == nil || e.Actor.Email != a.accounts["admin"].Email || e.Before["role"] == e.After["role"] || !strings.HasSuffix(e.CreatedAt, "Z") {
					t.Errorf("entry %+v", e)
				}
				got = append(got, e.ID)
			}
			q = ""
			if v.NextBeforeID != "" {
				q = "/api/v1/admin/audit?" + filter + "&limit=4&before_id=" + v.NextBeforeID
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(all) {
			t.Errorf("API %v, page %v", got, all)
		}
		if r := a.do("GET", "/api/v1/admin/audit?to=soon", staff, nil, nil); r.status != 400 || r.code() != "INVALID_REQUEST" {
			t.Errorf("bad date: %d %s", r.status, r.body)
		}
	})
}
