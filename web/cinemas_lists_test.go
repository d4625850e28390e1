package web

import (
	"strings"
	"testing"
	"time"

	"seatflow/services/catalog"
)

// TestCinemaChain_ListsOfEveryCinemaGroupShowsByCinema: a day with shows of Shanghai and
// London interleaved in UTC (Shanghai 00:30 = 16:30Z the day before, London 00:30 =
// 00:30Z, Shanghai 19:00 = 11:00Z, London 19:30 = 18:30Z) lists, on the programme of
// every cinema, the movie's page and the console's day, Shanghai's shows under its
// heading and then London's, each at its local times in order.
func TestCinemaChain_ListsOfEveryCinemaGroupShowsByCinema(t *testing.T) {
	a := newTestApp(t, nil)
	f := a.chainFixture(t)
	starts := time.Date(2027, 3, 28, 19, 0, 0, 0, f.shanghaiZ)
	r := a.do("POST", "/api/v1/admin/shows", f.admin, map[string]any{"movie_id": f.movie, "hall_id": f.shHall,
		"starts_at": starts.UTC().Format(time.RFC3339), "sale_opens_at": chainNow.Add(-time.Hour).Format(time.RFC3339),
		"sale_closes_at": starts.Add(-time.Hour).UTC().Format(time.RFC3339),
		"prices":         []map[string]any{{"zone": catalog.ZoneStandard, "price_minor": 4500}}, "purchase_limit": 4}, nil)
	if r.status != 201 {
		t.Fatalf("create show: %d %s", r.status, r.body)
	}
	shEvening := r.json(t)["id"].(string)
	for _, tc := range []struct{ name, path, heading, link string }{
		{"programme of every cinema", "/?cinema=all&date=2027-03-28", `class="cinema-heading">`, `href="/shows/`},
		{"the movie's page", "/movies/" + f.movie + "?cinema=all&date=2027-03-28", `class="cinema-heading">`, `href="/shows/`},
		{"the console's day", "/admin/shows?date=2027-03-28", `<th scope="colgroup" colspan="9">`, `href="/admin/shows/`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := a.getPage(tc.path, f.admin)
			body := string(r.body)
			if r.status != 200 {
				t.Fatalf("GET %s: %d", tc.path, r.status)
			}
			order := []string{tc.heading + f.shanghaiN, tc.link + f.shows["sh-28-0030"] + `"`, tc.link + shEvening + `"`,
				tc.heading + f.londonN, tc.link + f.shows["ln-28-0030"] + `"`, tc.link + f.shows["ln-28-1930"] + `"`}
			at := -1
			for _, w := range order {
				i := strings.Index(body[max(at, 0):], w)
				if i < 0 {
					t.Fatalf("%s lacks %q after the last one found, or in this order: %v", tc.path, w, order)
				}
				at = max(at, 0) + i
			}
		})
	}
	t.Run("one cinema chosen has no headings", func(t *testing.T) {
		body := string(a.getPage("/?cinema="+f.london+"&date=2027-03-28", "").body)
		if strings.Contains(body, `class="cinema-heading"`) {
			t.Error("the programme of London alone has cinema headings")
		}
	})
}
