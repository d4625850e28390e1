package web

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestConsoleNewShow_PriceCardAndTicketPrices: the console's new-show form copies in a
// price card of the hall's cinema (its adult price fills the zone left empty, its
// senior price is sold) and typed ticket prices win over the card's ("none" leaves a
// pair of the card out); without a card the typed pairs are sold; a zone left empty
// without a card, or a bad line, is refused (400) with the input kept, nothing created.
// A show's own page applies a card of its cinema to it.
func TestConsoleNewShow_PriceCardAndTicketPrices(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	if r := a.postPage("/admin/prices", "/admin/prices/types", staff, url.Values{"code": {"senior"}, "name": {"Senior"}}); r.status != 303 {
		t.Fatalf("add a type: %d %s", r.status, r.body)
	}
	p := a.pickCatalog(staff)
	now := a.clock.Now().Truncate(time.Second)
	starts := now.AddDate(0, 0, 40).Truncate(time.Hour)
	r := a.do("POST", "/api/v1/admin/shows", staff, p.showBody(starts, now.Add(-time.Minute), starts.Add(-time.Hour), 4000), nil)
	if r.status != 201 {
		t.Fatalf("create show: %d %s", r.status, r.body)
	}
	cinema := r.json(t)["cinema"].(map[string]any)["id"].(string)
	z := p.zones[0]
	if r := a.postPage("/admin/prices", "/admin/prices/cards", staff, url.Values{"cinema_id": {cinema}, "name": {"Matinee"},
		"prices": {"adult " + z + " 3500\nsenior " + z + " 2200\n"}}); r.status != 303 {
		t.Fatalf("add a card: %d %s", r.status, r.body)
	}
	var list struct {
		PriceCards []struct{ ID string } `json:"price_cards"`
	}
	if err := jsonOf(a.do("GET", "/api/v1/admin/price-cards", staff, nil, nil), &list); err != nil || len(list.PriceCards) != 1 {
		t.Fatalf("cards: %v %v", err, list)
	}
	card := list.PriceCards[0].ID
	if body := string(a.getPage("/admin/shows/new", staff).body); !strings.Contains(body, `name="price_card"`) || !strings.Contains(body, "Matinee") || !strings.Contains(body, `name="ticket_prices"`) {
		t.Fatal("the new-show form offers no price card or ticket prices")
	}
	day := 50
	form := func(card, lines string, zonePrice string) url.Values {
		day++
		v := url.Values{"movie_id": {p.movie}, "hall_id": {p.hall}, "date": {a.localDate(day)}, "start": {"19:30"},
			"opens_date": {a.localDate(0)}, "opens_time": {"00:00"}, "days": {"1"}, "price_card": {card}, "ticket_prices": {lines}}
		for _, code := range p.zones[1:] {
			v.Set("price_"+code, "45")
		}
		v.Set("price_"+z, zonePrice)
		return v
	}
	created := func(name string, f url.Values) string {
		t.Helper()
		r := a.postPage("/admin/shows/new", "/admin/shows", staff, f)
		loc := r.header.Get("Location")
		if r.status != 303 || !strings.HasPrefix(loc, "/admin/shows/") {
			t.Fatalf("%s: %d %s %s", name, r.status, loc, r.body)
		}
		return strings.TrimPrefix(loc, "/admin/shows/")
	}
	for _, tc := range []struct {
		name, card, lines, zonePrice string
		adult, senior                float64 // senior 0: not sold
	}{
		{"the card fills the empty zone", card, "", "", 3500, 2200},
		{"typed wins over the card", card, "senior " + z + " 1900", "40", 4000, 1900},
		{"none leaves the card's pair out", card, "senior " + z + " none", "", 3500, 0},
		{"no card: typed pairs", "", "senior " + z + " 2000", "41", 4100, 2000},
	} {
		show := created(tc.name, form(tc.card, tc.lines, tc.zonePrice))
		codes, prices := a.showTypes(show)
		if prices["adult"][z] != tc.adult || prices["senior"][z] != tc.senior || (tc.senior == 0) != (len(codes) == 1) {
			t.Errorf("%s: types %v prices %v, want adult %v senior %v", tc.name, codes, prices, tc.adult, tc.senior)
		}
	}
	// the show's own page applies a card of its cinema to it
	show := created("a show to reprice", form("", "", "42"))
	if body := string(a.getPage("/admin/shows/"+show, staff).body); !strings.Contains(body, `action="/admin/shows/`+show+`/price-card"`) || !strings.Contains(body, "Matinee") {
		t.Error("the show's page offers no price card")
	}
	if r := a.postPage("/admin/shows/"+show, "/admin/shows/"+show+"/price-card", staff, url.Values{"card_id": {card}}); r.status != 303 || r.header.Get("Location") != "/admin/shows/"+show+"?done=card" {
		t.Errorf("apply the card on the show's page: %d %s", r.status, r.header.Get("Location"))
	}
	if _, prices := a.showTypes(show); prices["adult"][z] != 3500 || prices["senior"][z] != 2200 {
		t.Errorf("after the card the show's prices are %v", prices)
	}
	if r := a.postPage("/admin/shows/"+show, "/admin/shows/"+show+"/price-card", staff, url.Values{"card_id": {"999999"}}); r.status != 404 {
		t.Errorf("an unknown card on the show's page: %d", r.status)
	}
	for _, tc := range []struct{ name, card, lines, zonePrice, says string }{
		{"no price without a card", "", "", "", "Enter a price"},
		{"a bad line", card, "senior " + z + " cheap", "", "must end in a price"},
		{"an unknown card", "999999", "", "", "price card"},
	} {
		r := a.postPage("/admin/shows/new", "/admin/shows", staff, form(tc.card, tc.lines, tc.zonePrice))
		if r.status < 400 || r.status >= 500 || !strings.Contains(string(r.body), tc.says) || !strings.Contains(string(r.body), tc.lines) {
			t.Errorf("%s: %d, the page says %q: %s", tc.name, r.status, tc.says, r.body)
		}
	}
}
