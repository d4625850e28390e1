package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"seatflow/services/catalog"
)

// TestCinemaChain_NewShowFormFollowsTheHallsCinema: the new-show form of a London hall
// says London's zone and GBP and fills the sale opening in at London's now, on first
// render and when htmx swaps the hall in; an opening filled in for the first cinema
// (Asia/Shanghai) and left untouched keeps its moment; a show typed 19:30 with its sale
// opening typed 10:00 starts and opens at those London times.
func TestCinemaChain_NewShowFormFollowsTheHallsCinema(t *testing.T) {
	a := newTestApp(t, nil)
	f := a.chainFixture(t) // now: Friday 26 March 2027 12:00 UTC, 12:00 GMT in London, 20:00 in Shanghai
	hint := "in " + f.londonN + "'s time zone, Europe/London."
	opening := func(date, clock string) []string {
		return []string{`id="opens_date" name="opens_date"`, `value="` + date + `"`, `id="opens_time" name="opens_time"`, `value="` + clock + `"`}
	}
	has := func(t *testing.T, what, body string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Errorf("%s lacks %q", what, w)
			}
		}
	}
	t.Run("first render with the London hall", func(t *testing.T) {
		r := a.getPage("/admin/shows/new?hall_id="+f.lnHall, f.admin)
		if r.status != 200 {
			t.Fatalf("new show form: %d", r.status)
		}
		has(t, "the form", string(r.body), append(opening("2027-03-26", "12:00"), hint, "Prices (GBP)", `name="defaults_zone" value="Europe/London"`)...)
	})
	t.Run("htmx swaps the London hall in", func(t *testing.T) {
		q := url.Values{"hall_id": {f.lnHall}, "opens_date": {"2027-03-26"}, "opens_time": {"20:00"},
			"opens_default": {"2027-03-26 20:00"}, "defaults_zone": {"Asia/Shanghai"}}
		r := a.getPage("/admin/shows/new/prices?"+q.Encode(), f.admin)
		body := string(r.body)
		has(t, "the swap", body, append(opening("2027-03-26", "12:00"), hint, "Prices (GBP)", `id="show-zone" hx-swap-oob="true"`,
			`id="sale-opens" class="field-group" hx-swap-oob="true"`, `value="2027-03-26 12:00"`)...)
		q.Set("opens_time", "10:00") // typed by hand: kept
		body = string(a.getPage("/admin/shows/new/prices?"+q.Encode(), f.admin).body)
		has(t, "the swap of a typed opening", body, opening("2027-03-26", "10:00")...)
	})
	create := func(t *testing.T, date, opensTime string) (string, string) {
		t.Helper()
		form := url.Values{"movie_id": {f.movie}, "hall_id": {f.lnHall}, "date": {date}, "start": {"19:30"},
			"opens_date": {"2027-03-26"}, "opens_time": {opensTime}, "opens_default": {"2027-03-26 20:00"}, "defaults_zone": {"Asia/Shanghai"},
			"days": {"1"}, "price_" + catalog.ZoneStandard: {"9.50"}}
		r := a.postPage("/admin/shows/new", "/admin/shows", f.admin, form)
		loc := r.header.Get("Location")
		if r.status != http.StatusSeeOther || !strings.HasPrefix(loc, "/admin/shows/") {
			t.Fatalf("create: %d %s %.400s", r.status, loc, r.body)
		}
		var s struct {
			StartsAt    string `json:"starts_at"`
			SaleOpensAt string `json:"sale_opens_at"`
		}
		id := strings.TrimPrefix(loc, "/admin/shows/")
		if r := a.do("GET", "/api/v1/shows/"+id, "", nil, nil); json.Unmarshal(r.body, &s) != nil {
			t.Fatalf("show %s: %d %s", id, r.status, r.body)
		}
		return s.StartsAt, s.SaleOpensAt
	}
	london := func(s string) string {
		t, _ := time.ParseInLocation("2006-01-02 15:04", s, f.londonZ)
		return t.UTC().Format(time.RFC3339)
	}
	t.Run("typed 19:30, sale opening typed 10:00", func(t *testing.T) {
		starts, opens := create(t, "2027-04-03", "10:00")
		if starts != london("2027-04-03 19:30") || opens != london("2027-03-26 10:00") {
			t.Errorf("starts %s, opens %s; want 19:30 and 10:00 London time (%s, %s)", starts, opens, london("2027-04-03 19:30"), london("2027-03-26 10:00"))
		}
	})
	t.Run("an untouched opening filled in for Shanghai keeps its moment", func(t *testing.T) {
		if _, opens := create(t, "2027-04-04", "20:00"); opens != chainNow.Format(time.RFC3339) {
			t.Errorf("opens %s, want %s (the moment the form was filled in), not 20:00 London time", opens, chainNow.Format(time.RFC3339))
		}
	})
}
