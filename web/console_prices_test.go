package web

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"seatflow/views"
)

// TestConsolePrices_TypesCardsAndBulkApply drives the console's prices page: staff add
// a ticket type and a price card through its forms, apply the card to two shows at once
// (the bulk action) and see the type on the show's detail page; a bad price line and a
// taken code come back 400 and 409 with the input kept, changing nothing; customers
// are refused the page.
func TestConsolePrices_TypesCardsAndBulkApply(t *testing.T) {
	a := newTestApp(t, nil)
	staff, buyer := a.demoToken("staff"), a.newUser()
	if r := a.getPage("/admin/prices", buyer); r.status != 403 {
		t.Fatalf("customer on the prices page: %d", r.status)
	}
	r := a.postPage("/admin/prices", "/admin/prices/types", staff, url.Values{"code": {"senior"}, "name": {"Senior"}, "name_zh": {"长者"}, "note": {"Proof of age at the door"}})
	if r.status != 303 {
		t.Fatalf("add a type: %d %s", r.status, r.body)
	}
	if r := a.postPage("/admin/prices", "/admin/prices/types", staff, url.Values{"code": {"senior"}, "name": {"Older"}}); r.status != 409 || !strings.Contains(string(r.body), `value="Older"`) {
		t.Errorf("a taken code: %d", r.status)
	}
	p := a.pickCatalog(staff)
	now := a.clock.Now().Truncate(time.Second)
	var shows []string
	for i := 0; i < 2; i++ {
		starts := now.AddDate(0, 0, 30+i).Truncate(time.Hour)
		r := a.do("POST", "/api/v1/admin/shows", staff, p.showBody(starts, now.Add(-time.Minute), starts.Add(-time.Hour), 4000), nil)
		if r.status != 201 {
			t.Fatalf("create show: %d %s", r.status, r.body)
		}
		shows = append(shows, r.json(t)["id"].(string))
	}
	cinema := a.do("GET", "/api/v1/shows/"+shows[0], "", nil, nil).json(t)["cinema"].(map[string]any)["id"].(string)
	if r := a.postPage("/admin/prices", "/admin/prices/cards", staff, url.Values{"cinema_id": {cinema}, "name": {"Matinee"}, "prices": {"senior " + p.zones[0] + " twelve"}}); r.status != 400 {
		t.Errorf("a bad price line: %d", r.status)
	}
	r = a.postPage("/admin/prices", "/admin/prices/cards", staff, url.Values{"cinema_id": {cinema}, "name": {"Matinee"}, "prices": {"adult " + p.zones[0] + " 3500\nsenior " + p.zones[0] + " 2200\n"}})
	if r.status != 303 {
		t.Fatalf("add a card: %d %s", r.status, r.body)
	}
	// the card lists its prices as money in its cinema's currency, not minor units
	cur := a.do("GET", "/api/v1/shows/"+shows[0], "", nil, nil).json(t)["zones"].([]any)[0].(map[string]any)["currency"].(string)
	listed := a.pageDoc(t, "/admin/prices", staff).Find(".card-prices li").Map(func(_ int, li *goquery.Selection) string {
		return strings.Join(strings.Fields(li.Text()), " ")
	})
	for _, want := range []string{"adult · " + p.zones[0] + " · " + views.Money(3500, cur), "senior · " + p.zones[0] + " · " + views.Money(2200, cur)} {
		if !slices.Contains(listed, want) {
			t.Errorf("the card lists %q, want a line %q", listed, want)
		}
	}
	var list struct {
		PriceCards []struct{ ID string } `json:"price_cards"`
	}
	if err := jsonOf(a.do("GET", "/api/v1/admin/price-cards", staff, nil, nil), &list); err != nil || len(list.PriceCards) != 1 {
		t.Fatalf("cards: %v %v", err, list)
	}
	r = a.postPage("/admin/prices", "/admin/prices/apply", staff, url.Values{"card_id": {list.PriceCards[0].ID}, "show": shows})
	if r.status != 303 || !strings.Contains(r.header.Get("Location"), "Applied") {
		t.Fatalf("apply: %d %s", r.status, r.header.Get("Location"))
	}
	for _, s := range shows {
		if codes, prices := a.showTypes(s); len(codes) != 2 || prices["senior"][p.zones[0]] != 2200 || prices["adult"][p.zones[0]] != 3500 {
			t.Errorf("show %s after the bulk apply: %v %v", s, codes, prices)
		}
	}
	if body := string(a.getPage("/admin/shows/"+shows[1], staff).body); !strings.Contains(body, "Senior") || !strings.Contains(body, "22.00") {
		t.Error("the show's detail page does not list the senior price")
	}

	// the show's edit form changes the pairs it names: a bad line changes nothing
	s := a.consoleSession(staff)
	_, page := s.get("/admin/shows/" + shows[1])
	edit := url.Values{}
	for _, f := range regexp.MustCompile(`<input id="[a-z_]+" name="([a-z_]+)" type="(?:date|time|number|text)"[^>]*value="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		edit.Set(f[1], f[2])
	}
	edit.Del("admit_per_minute")
	for _, tc := range []struct {
		name, lines string
		status      int
		senior      float64 // 0: not sold
	}{
		{"not a price", "senior " + p.zones[0] + " cheap", 400, 2200},
		{"unknown type", "dragon " + p.zones[0] + " 100", 400, 2200},
		{"a new price", "senior " + p.zones[0] + " 2100", 303, 2100},
		{"stop selling", "senior " + p.zones[0] + " none", 303, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edit.Set("ticket_prices", tc.lines)
			if st, _, body := s.post("/admin/shows/"+shows[1], edit); st != tc.status {
				t.Fatalf("status %d, want %d\n%s", st, tc.status, body)
			}
			if _, prices := a.showTypes(shows[1]); prices["senior"][p.zones[0]] != tc.senior {
				t.Errorf("senior now %v, want %v", prices["senior"], tc.senior)
			}
		})
	}
}
