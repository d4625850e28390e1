package web

import (
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"seatflow/views"
)

// TestPages_PickFromListsAsksTicketTypes: the step-through selection (seats picked from
// lists, no seat map) asks the ticket types like the picker: its row's form has the
// counts (each type's prices, the door note) and the voucher field, and its seats carry
// their zone and price for the total; booking there with one child sends the counts (the
// order has a child seat at the child price), and a refused booking comes back to the
// row with the counts and the code kept.
func TestPages_PickFromListsAsksTicketTypes(t *testing.T) {
	a := newTestApp(t, nil)
	const child = 2500
	show, adult, currency, s1, s2 := a.childShow(t, child)
	var label, zone string
	for _, s := range a.seatMap(show) {
		if s.ID == s1 {
			label, zone = s.Label, s.Zone
		}
	}
	row := strings.TrimRight(label, "0123456789")
	token := a.newUser()
	steps := views.StepsURL(mustID(t, show), zone, row)
	doc := a.pageDoc(t, steps, token)
	form := doc.Find("form.steps-book")
	for what, sel := range map[string]string{
		"the child count": `input[name="tickets_child"]#step-tickets-child`,
		"the voucher":     `input[name="voucher"]#step-voucher`,
		"priced seats":    `input[name="seat"][value="` + s1 + `"][data-zone-code="` + zone + `"][data-price-minor]`,
	} {
		if form.Find(sel).Length() != 1 {
			t.Errorf("the row's form has no %s (%s)", what, sel)
		}
	}
	if text := form.Find("[data-ticket-counts]").Text(); !strings.Contains(text, "ID required at the door") || !strings.Contains(text, views.Money(child, currency)) {
		t.Errorf("the counts read %q", text)
	}

	t.Run("a refusal keeps the counts and the code", func(t *testing.T) {
		s := a.consoleSession(token)
		s.get(steps)
		status, loc, _ := s.post("/shows/"+show+"/book", url.Values{"seat": {s1, s2}, "tickets_child": {"3"}, "voucher": {"no-such-code"},
			"step_zone": {zone}, "step_row": {row}})
		if status != 303 {
			t.Fatalf("book: %d", status)
		}
		_, body := s.get(loc)
		back, err := goquery.NewDocumentFromReader(strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if got := back.Find(".alert").Text(); !strings.Contains(got, "More tickets") {
			t.Errorf("the refusal says %q", got)
		}
		if v, _ := back.Find("#step-tickets-child").Attr("value"); v != "3" {
			t.Errorf("the child count came back as %q", v)
		}
		if v, _ := back.Find("#step-voucher").Attr("value"); v != "no-such-code" {
			t.Errorf("the code came back as %q", v)
		}
	})

	t.Run("booking sends the counts", func(t *testing.T) {
		s := a.consoleSession(token)
		s.get(steps)
		status, loc, _ := s.post("/shows/"+show+"/book", url.Values{"seat": {s1, s2}, "tickets_child": {"1"}, "step_zone": {zone}, "step_row": {row}})
		if status != 303 || !strings.HasPrefix(loc, "/orders/") {
			t.Fatalf("book: %d %s", status, loc)
		}
		o := a.do("GET", "/api/v1/orders/"+strings.TrimPrefix(strings.SplitN(loc, "?", 2)[0], "/orders/"), token, nil, nil).json(t)
		if o["total_minor"] != float64(adult+child) {
			t.Errorf("the order: %v, want a total of %d", o, adult+child)
		}
	})
}
