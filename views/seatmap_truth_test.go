package views_test

import (
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"seatflow/services"
	"seatflow/views"
)

// smallProps is the show page of a 2 × 6 hall ("SSSSSS" twice, ids 1..12) with every
// seat free, for user 7, rendered in English at now.
func smallProps(t *testing.T) views.ShowPageProps {
	t.Helper()
	h := hallOf(t, "SSSSSS\nSSSSSS")
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	show := &services.Show{ID: 5, HallID: 1, Status: services.ShowOnSale, PurchaseLimit: 4, Currency: "CNY",
		StartsAt: now.Add(48 * time.Hour), SaleOpensAt: now.Add(-time.Hour), SaleClosesAt: now.Add(47 * time.Hour),
		Movie: services.Movie{Title: "Small"}, HallName: "Hall S", SeatsLeft: 12,
		Zones: []services.Zone{{Code: "standard", Name: "Standard", PriceMinor: 5000, SeatsLeft: 12}}}
	m := &views.ShowSeatMap{Show: show, Hall: h, States: map[int64]string{}, Owners: map[int64]int64{}}
	for _, s := range h.Seats {
		m.States[s.ID] = services.StateFree
	}
	return views.ShowPageProps{Page: views.Page{Title: "Small", User: &services.User{ID: 7}, Path: "/shows/5"},
		Map: m, Now: now, Zone: time.UTC, HoldFor: 15 * time.Minute, Selected: map[int64]bool{}}
}

// TestShowPage_TickedSeatIsNamedSelected: a seat the page renders ticked tells screen
// readers "selected", not "available"; an unticked free seat says "available".
func TestShowPage_TickedSeatIsNamedSelected(t *testing.T) {
	p := smallProps(t)
	p.Selected[2] = true
	doc, _ := render(t, p)
	ticked, _ := doc.Find(`input[name="seat"][value="2"]`).Attr("aria-label")
	if !strings.HasSuffix(ticked, "selected") || strings.Contains(ticked, "available") {
		t.Errorf("the ticked seat is named %q", ticked)
	}
	free, _ := doc.Find(`input[name="seat"][value="3"]`).Attr("aria-label")
	if !strings.HasSuffix(free, "available") {
		t.Errorf("a free seat is named %q", free)
	}
}

// TestShowPage_CancelledShowSaysWhyWithoutSeatsLeft: a cancelled show's page gives the
// reason staff wrote for buyers and no "seats left" (nor a seat map).
func TestShowPage_CancelledShowSaysWhyWithoutSeatsLeft(t *testing.T) {
	p := smallProps(t)
	p.Map.Show.Status = services.ShowCancelled
	p.CancelNote = "The projector broke; every ticket is refunded."
	doc, _ := render(t, p)
	state := doc.Find(`#sale-state`).Text()
	if !strings.Contains(state, "cancelled") || !strings.Contains(state, p.CancelNote) {
		t.Errorf("the cancelled show's notice says %q", state)
	}
	if body := doc.Find("main").Text(); strings.Contains(body, "seats left") || strings.Contains(body, "seat left") {
		t.Errorf("a cancelled show's page still counts seats left: %q", body)
	}
	if doc.Find(`input[name="seat"]`).Length() != 0 {
		t.Error("a cancelled show's page offers seats")
	}
}

// TestShowPage_StartedShowOffersNoSeats: once the show has started its page offers no
// seat, no "Choose seats" and no seats left.
func TestShowPage_StartedShowOffersNoSeats(t *testing.T) {
	p := smallProps(t)
	p.Now = p.Map.Show.StartsAt.Add(time.Minute)
	doc, _ := render(t, p)
	body := doc.Find("main").Text()
	for _, bad := range []string{"Choose seats", "seats left", "Book selected seats", "Pick from lists"} {
		if strings.Contains(body, bad) {
			t.Errorf("a started show's page says %q", bad)
		}
	}
	if doc.Find(`input[name="seat"]`).Length() != 0 {
		t.Error("a started show's page offers seats")
	}
}

// offeredProps is smallProps with every seat held: seats 1 and 2 by the waiting list's
// offer to user 7 (order OFFER1), the rest by others.
func offeredProps(t *testing.T) views.ShowPageProps {
	p := smallProps(t)
	for id := range p.Map.States {
		p.Map.States[id], p.Map.Owners[id] = services.StateHeld, 99
	}
	p.Map.Owners[1], p.Map.Owners[2] = 7, 7
	p.Map.Show.SeatsLeft = 0
	p.Map.Show.Zones[0].SeatsLeft = 0
	expires := p.Now.Add(10 * time.Minute)
	offer := &services.Order{OrderNo: "OFFER1", Status: services.OrderPending, ExpiresAt: expires,
		Seats: []services.OrderSeat{{SeatID: 1, Label: "A1"}, {SeatID: 2, Label: "A2"}}}
	p.Waitlist = &views.WaitlistView{Show: p.Map.Show, Zone: time.UTC, Page: p.Page, Now: p.Now, Offer: offer,
		Entry: &views.WaitlistEntry{ShowID: 5, UserID: 7, Quantity: 2, Status: views.WaitlistOffered, OrderNo: "OFFER1", OfferExpiresAt: &expires}}
	return p
}

// TestShowPage_WaitlistOfferIsToldNotAllSeatsHeld: once the waiting list offers seats
// to the buyer, the page says they are held for them with the link to pay, not "all
// seats held" nor "0 seats left", and offers no "Leave the waiting list".
func TestShowPage_WaitlistOfferIsToldNotAllSeatsHeld(t *testing.T) {
	doc, _ := render(t, offeredProps(t))
	body := doc.Find("main").Text()
	for _, bad := range []string{"All seats", "all seats", "0 seats left", "Leave the waiting list"} {
		if strings.Contains(body, bad) {
			t.Errorf("with an offer the page says %q", bad)
		}
	}
	if !strings.Contains(doc.Find(`#sale-state`).Text(), "A1, A2") {
		t.Errorf("the notice does not name the offered seats: %q", doc.Find(`#sale-state`).Text())
	}
	if doc.Find(`a[href="/orders/OFFER1"]`).Length() == 0 {
		t.Error("no link to pay the offer")
	}
}

// TestShowPage_StepThroughListsZoneRowSeats: the step-through selection offers the
// zones, then the chosen zone's rows, then the row's free seats as labelled checkboxes
// in a form posting to the booking; a row without free seats cannot be chosen.
func TestShowPage_StepThroughListsZoneRowSeats(t *testing.T) {
	p := smallProps(t)
	for id := int64(1); id <= 6; id++ { // row A all sold
		p.Map.States[id] = services.StateSold
	}
	p.Map.States[9] = services.StateHeld
	p.Steps = &views.StepThrough{}
	doc, _ := render(t, p)
	if doc.Find(`select#step-zone option`).Length() != 1 || doc.Find(`label[for="step-zone"]`).Length() != 1 {
		t.Fatal("step 1 has no labelled zone choice")
	}
	if doc.Find(`select#step-row`).Length() != 0 || doc.Find(`input[name="seat"]`).Length() != 0 {
		t.Error("rows or seats before a zone is chosen")
	}
	p.Steps = &views.StepThrough{Zone: "standard"}
	doc, _ = render(t, p)
	rows := doc.Find(`select#step-row option`)
	if rows.Length() != 2 || rows.First().AttrOr("disabled", "no") == "no" || !strings.Contains(rows.Last().Text(), "5 seats left") {
		t.Errorf("step 2's rows: %q", rows.Text())
	}
	p.Steps = &views.StepThrough{Zone: "standard", Row: "B"}
	doc, _ = render(t, p)
	form := doc.Find(`form.steps-book[action="/shows/5/book"]`)
	boxes := form.Find(`input[type="checkbox"][name="seat"]`)
	if boxes.Length() != 5 {
		t.Fatalf("step 3 lists %d seats, want the 5 free ones of row B", boxes.Length())
	}
	boxes.Each(func(_ int, b *goquery.Selection) {
		id, _ := b.Attr("id")
		if l := form.Find(`label[for="` + id + `"]`).Text(); !strings.HasPrefix(l, "Row B, seat ") {
			t.Errorf("seat %s is labelled %q", b.AttrOr("value", ""), l)
		}
		if b.AttrOr("value", "") == "9" {
			t.Error("the held seat B3 is listed")
		}
	})
	if form.Find(`input[name="step_row"][value="B"]`).Length() != 1 || form.Find(`button[type="submit"]`).Length() != 1 {
		t.Error("step 3's form does not carry its row or has no Book button")
	}
	if doc.Find(`.seatmap-scroll`).Length() != 0 {
		t.Error("the seat map is shown with the step-through selection")
	}
}
