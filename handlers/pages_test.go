package handlers

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/orders"
	"seatflow/services/seats"
	"seatflow/views"
)

// --- fixtures -------------------------------------------------------------------------

var shanghai = mustZone("Asia/Shanghai")

func mustZone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.FixedZone("CST", 8*3600)
	}
	return loc
}

func seatID(row, col int) int64 { return int64(100 + row*10 + col) }

// fixtureMap is a hall of 3 rows (A..C) and 5 grid columns with an aisle at column 3:
// A1 wheelchair, A2 companion, C5 blocked; A4 held and A5 sold by others, B2 held by
// another buyer, B1 held by user 7.
func fixtureMap(now time.Time) *seats.SeatMap {
	hall := &services.Hall{ID: 1, Name: "Hall 1", Rows: 3, Cols: 5}
	for r := 1; r <= 3; r++ {
		for _, col := range []int{1, 2, 4, 5} {
			num := col
			if col > 3 {
				num = col - 1 // numbers skip the aisle: A1 A2 | A3 A4
			}
			zone := "standard"
			if r == 3 {
				zone = "premium"
			}
			s := services.Seat{ID: seatID(r, col), HallID: 1, ZoneCode: zone, Row: r, Col: col,
				Label: string(rune('A'+r-1)) + strconv.Itoa(num), Kind: services.KindStandard}
			hall.Seats = append(hall.Seats, s)
		}
	}
	kinds := map[int64]string{seatID(1, 1): services.KindWheelchair, seatID(1, 2): services.KindCompanion, seatID(3, 5): services.KindBlocked}
	for i := range hall.Seats {
		if k, ok := kinds[hall.Seats[i].ID]; ok {
			hall.Seats[i].Kind = k
		}
	}
	show := &services.Show{ID: 42, HallID: 1, Status: services.ShowOnSale, PurchaseLimit: 4, Currency: "CNY",
		StartsAt: now.Add(5 * time.Hour), SaleOpensAt: now.Add(-24 * time.Hour), SaleClosesAt: now.Add(5 * time.Hour),
		Movie: services.Movie{Title: "Copper Sparrow", RuntimeMin: 131}, HallName: "Hall 1",
		Zones:     []services.Zone{{Code: "premium", Name: "Premium", PriceMinor: 6500, SeatsLeft: 3}, {Code: "standard", Name: "Standard", PriceMinor: 4500, SeatsLeft: 4}},
		SeatsLeft: 7}
	m := &seats.SeatMap{Show: show, Hall: hall, States: map[int64]string{}, Owners: map[int64]int64{}}
	for _, s := range hall.Seats {
		m.States[s.ID] = services.StateFree
	}
	m.States[seatID(3, 5)] = services.StateBlocked
	m.States[seatID(1, 4)], m.Owners[seatID(1, 4)] = services.StateHeld, 9
	m.States[seatID(1, 5)], m.Owners[seatID(1, 5)] = services.StateSold, 9
	m.States[seatID(2, 2)], m.Owners[seatID(2, 2)] = services.StateHeld, 9
	m.States[seatID(2, 1)], m.Owners[seatID(2, 1)] = services.StateHeld, 7
	return m
}

var buyer = &services.User{ID: 7, Name: "Mei", Email: "mei@seatflow.test", Role: services.RoleCustomer}

func renderDoc(t *testing.T, c templ.Component) *goquery.Document {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(context.Background(), &buf); err != nil {
		t.Fatalf("render: %v", err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return doc
}

func showProps(now time.Time) views.ShowPageProps {
	return views.ShowPageProps{Page: views.Page{Title: "Copper Sparrow", User: buyer, Path: "/shows/42"},
		Map: seatMapView(fixtureMap(now)), Now: now, Zone: shanghai, HoldFor: 15 * time.Minute}
}

func seatInput(doc *goquery.Document, id int64) *goquery.Selection {
	return doc.Find(`input[type="checkbox"][name="seat"][value="` + strconv.FormatInt(id, 10) + `"]`)
}

// --- seat map -------------------------------------------------------------------------

func TestSeatMapHasOneCheckboxPerSellableSeat(t *testing.T) {
	now := time.Now().UTC()
	p := showProps(now)
	doc := renderDoc(t, views.ShowPage(p))

	form := doc.Find(`form[method="post"][action="/shows/42/book"]`)
	if form.Length() != 1 {
		t.Fatalf("want one booking form posting to /shows/42/book, got %d", form.Length())
	}
	boxes := form.Find(`input[type="checkbox"][name="seat"]`)
	sellable := 0
	for _, s := range p.Map.Hall.Seats {
		if s.Sellable() {
			sellable++
			if seatInput(doc, s.ID).Length() != 1 {
				t.Errorf("seat %s has no checkbox", s.Label)
			}
		}
	}
	if boxes.Length() != sellable {
		t.Fatalf("checkboxes = %d, sellable seats = %d", boxes.Length(), sellable)
	}
	if seatInput(doc, seatID(3, 5)).Length() != 0 {
		t.Error("the blocked seat C5 is selectable")
	}
	if blocked := doc.Find(`.seat-blocked[data-label="C4"]`); blocked.Length() != 1 || blocked.Find("input").Length() != 0 {
		t.Error("the blocked seat is not shown as a blocked cell without an input")
	}
	// every seat is named for screen readers and in the tooltip
	boxes.Each(func(_ int, s *goquery.Selection) {
		if aria, _ := s.Attr("aria-label"); !strings.HasPrefix(aria, "Row ") || !strings.Contains(aria, ", seat ") {
			t.Errorf("checkbox %s has aria-label %q", s.AttrOr("value", ""), aria)
		}
	})
	if title := doc.Find(`label[data-label="B4"]`).AttrOr("title", ""); !strings.Contains(title, "B4") || !strings.Contains(title, "¥45.00") {
		t.Errorf("B4 title = %q, want its label and price", title)
	}
}

func TestSeatMapDisablesHeldAndSoldSeats(t *testing.T) {
	now := time.Now().UTC()
	doc := renderDoc(t, views.ShowPage(showProps(now)))
	cases := []struct {
		id       int64
		disabled bool
		class    string
	}{
		{seatID(1, 4), true, "seat-held"},
		{seatID(1, 5), true, "seat-sold"},
		{seatID(2, 2), true, "seat-held"},
		{seatID(2, 1), true, "seat-yours"},
		{seatID(2, 4), false, "seat-free"},
		{seatID(1, 1), false, "seat-wheelchair"},
		{seatID(1, 2), false, "seat-companion"},
	}
	for _, tc := range cases {
		in := seatInput(doc, tc.id)
		_, disabled := in.Attr("disabled")
		if disabled != tc.disabled {
			t.Errorf("seat %d disabled = %v, want %v", tc.id, disabled, tc.disabled)
		}
		if !in.Parent().HasClass(tc.class) {
			t.Errorf("seat %d class = %q, want %s", tc.id, in.Parent().AttrOr("class", ""), tc.class)
		}
	}
	if got := doc.Find(`label[data-label="A1"] .seat-box`).Text(); got != "♿" {
		t.Errorf("wheelchair space shows %q, want ♿", got)
	}
	if title := doc.Find(`label[data-label="B1"]`).AttrOr("title", ""); !strings.Contains(title, "yours") {
		t.Errorf("B1 (held by the buyer) title = %q, want yours", title)
	}
}

func TestSeatGridPositionUsesRowAndCol(t *testing.T) {
	now := time.Now().UTC()
	p := showProps(now)
	doc := renderDoc(t, views.ShowPage(p))
	grid := doc.Find(".seats")
	if style := doc.Find(".hall-grid").AttrOr("style", ""); !strings.Contains(style, "grid-template-columns:var(--label-w) repeat(5,") {
		t.Errorf("hall grid style = %q, want a row-letter column and repeat(5, ...) seat columns", style)
	}
	for _, s := range p.Map.Hall.Seats {
		cell := grid.Find(`[data-label="` + s.Label + `"]`)
		want := "grid-row:" + strconv.Itoa(s.Row) + ";grid-column:" + strconv.Itoa(s.Col) + ";"
		if style := cell.AttrOr("style", ""); style != want {
			t.Errorf("seat %s style = %q, want %q", s.Label, style, want)
		}
	}
	// row letters on both sides, and a screen bar
	if n := doc.Find(".row-labels").Length(); n != 2 {
		t.Errorf("row label columns = %d, want 2", n)
	}
	if got := doc.Find(".row-labels").First().Find(".row-label").Eq(2).Text(); got != "C" {
		t.Errorf("third row letter = %q, want C", got)
	}
	if !strings.Contains(doc.Find(".screen").Text(), "SCREEN") {
		t.Error("no screen bar")
	}
}

func TestAisleColumnHasNoSeat(t *testing.T) {
	now := time.Now().UTC()
	doc := renderDoc(t, views.ShowPage(showProps(now)))
	cells := doc.Find(".seats").Children()
	if cells.Length() != 12 {
		t.Fatalf("cells = %d, want 12 (4 per row, blocked included)", cells.Length())
	}
	cells.Each(func(_ int, s *goquery.Selection) {
		if strings.Contains(s.AttrOr("style", ""), "grid-column:3;") {
			t.Errorf("seat %s sits in the aisle column", s.AttrOr("data-label", ""))
		}
	})
}

func TestShowPageSignedOutAndNotOnSale(t *testing.T) {
	now := time.Now().UTC()
	p := showProps(now)
	p.User = nil
	doc := renderDoc(t, views.ShowPage(p))
	// signing in is the seat form's submit: the picks go along (see bookSeats)
	if doc.Find(`form[action="/shows/42/book"] button[type="submit"]:contains("Sign in to book")`).Length() != 1 {
		t.Error("no sign-in submit on the seat form")
	}
	if doc.Find(`button[type="submit"]:contains("Book selected")`).Length() != 0 {
		t.Error("signed-out page has a booking button")
	}

	p = showProps(now)
	p.Map.Show.SaleOpensAt = now.Add(2 * time.Hour)
	doc = renderDoc(t, views.ShowPage(p))
	btn := doc.Find(`.seat-form button[type="submit"]`)
	if _, disabled := btn.Attr("disabled"); !disabled {
		t.Error("submit is enabled before the sale opens")
	}
	if reason := doc.Find("#sale-state").Text(); !strings.Contains(reason, "Sale opens") {
		t.Errorf("reason = %q", reason)
	}
	text := doc.Find(".rules").Text()
	if !strings.Contains(text, "Up to 4 seats per person") || !strings.Contains(text, "15 minutes to pay") {
		t.Errorf("rules = %q", text)
	}
}

// --- SEAT_TAKEN -----------------------------------------------------------------------

func TestSeatTakenMessageNamesTheSeats(t *testing.T) {
	if got, want := views.SeatTakenMessage([]string{"F7", "F8"}), "Sorry, F7 and F8 were just taken by someone else."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := views.SeatTakenMessage([]string{"F7"}), "Sorry, F7 was just taken by someone else."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := views.JoinLabels([]string{"A1", "A2", "A3"}), "A1, A2 and A3"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}

	// the buyer picked A4, B2 and B3; A4 (col 5) and B2 went to someone else meanwhile
	now := time.Now().UTC()
	p := showProps(now)
	se := &services.Error{Code: services.CodeSeatTaken, Message: "already taken: A4, B2", Seats: []string{"A4", "B2"}}
	msg, lost := bookingMessage(views.En, se, fixtureMap(now), buyer.ID, now, shanghai)
	if !strings.HasPrefix(msg, "Sorry, A4 and B2 were just taken by someone else.") {
		t.Errorf("message = %q", msg)
	}
	if !lost[seatID(1, 5)] || !lost[seatID(2, 2)] || len(lost) != 2 {
		t.Errorf("lost = %v", lost)
	}
	if st, _ := asError(se); st != fiber.StatusConflict {
		t.Errorf("status = %d", st)
	}
	p.Error, p.JustTaken = msg, lost
	p.Selected = map[int64]bool{seatID(2, 4): true}
	doc := renderDoc(t, views.ShowPage(p))
	if alert := doc.Find(`[role="alert"]`).Text(); !strings.Contains(alert, "A4 and B2") {
		t.Errorf("alert = %q", alert)
	}
	if _, ok := seatInput(doc, seatID(2, 4)).Attr("checked"); !ok {
		t.Error("the still free seat B3 is no longer checked")
	}
	if !seatInput(doc, seatID(2, 2)).Parent().HasClass("seat-just-taken") {
		t.Error("the lost seat B2 is not highlighted")
	}
}

// --- demo provider, order page ---------------------------------------------------------

func TestDemoPayPageHasApproveAndDeclineForms(t *testing.T) {
	p := demoPayment
	pay := &p
	doc := renderDoc(t, views.DemoPayPage(views.DemoPayProps{Page: views.Page{Title: "Demo payment"}, Payment: paymentView(pay)}))
	if !strings.Contains(doc.Text(), "Demo payment provider") || !strings.Contains(doc.Text(), "¥90.00") || !strings.Contains(doc.Text(), pay.OrderNo) {
		t.Errorf("page lacks provider name, amount or order number: %q", doc.Find("main").Text())
	}
	for _, action := range []string{"approve", "decline"} {
		f := doc.Find(`form[action="/pay/demo/pay_abc123/` + action + `"]`)
		if f.Length() != 1 {
			t.Fatalf("no %s form", action)
		}
		if m := strings.ToLower(f.AttrOr("method", "")); m != "post" {
			t.Errorf("%s form method = %q", action, m)
		}
		if b := f.Find(`button[type="submit"]`).Text(); !strings.Contains(strings.ToLower(b), action) {
			t.Errorf("%s button says %q", action, b)
		}
	}
}

func TestOrderPagePendingHasDeadlineAndActions(t *testing.T) {
	now := time.Date(2025, 11, 30, 11, 30, 0, 0, time.UTC) // 19:30 in Shanghai
	m := fixtureMap(now)
	order := &services.Order{OrderNo: "0MI8K2J3LQ2ZKX7", UserID: 7, ShowID: 42, Status: services.OrderPending, TotalMinor: 11000,
		Currency: "CNY", CreatedAt: now.Add(-time.Minute), ExpiresAt: now.Add(15 * time.Minute),
		Seats: []services.OrderSeat{{SeatID: seatID(2, 4), Label: "B3", ZoneCode: "standard", PriceMinor: 4500}, {SeatID: seatID(3, 1), Label: "C1", ZoneCode: "premium", PriceMinor: 6500}}}
	doc := renderDoc(t, views.OrderPage(views.OrderPageProps{Page: views.Page{User: buyer}, Order: order, Show: m.Show, Now: now, Zone: shanghai}))
	if got := doc.Find(".deadline").Text(); !strings.Contains(got, "Pay by 19:45 (in 15 minutes)") {
		t.Errorf("deadline = %q", got)
	}
	for _, action := range []string{"pay", "cancel"} {
		if f := doc.Find(`form[method="post"][action="/orders/0MI8K2J3LQ2ZKX7/` + action + `"]`); f.Length() != 1 {
			t.Errorf("no %s form", action)
		}
	}
	if got := doc.Find(".total").Text(); got != "¥110.00" {
		t.Errorf("total = %q", got)
	}
	if got := doc.Find(".order-seats tbody tr").First().Text(); !strings.Contains(got, "B3") || !strings.Contains(got, "Standard") {
		t.Errorf("first seat row = %q", got)
	}

	paidAt := now.Add(2 * time.Minute)
	order.Status, order.PaidAt = services.OrderPaid, &paidAt
	doc = renderDoc(t, views.OrderPage(views.OrderPageProps{Page: views.Page{User: buyer}, Order: order, Show: m.Show, Now: now, Zone: shanghai}))
	if doc.Find(`form[action$="/pay"]`).Length() != 0 {
		t.Error("a paid order offers to pay")
	}
	if got := doc.Find(".success").Text(); !strings.Contains(got, "Paid at Sun 30 Nov, 19:32") {
		t.Errorf("paid = %q", got)
	}
}

// --- helpers --------------------------------------------------------------------------

func TestMoney(t *testing.T) {
	cases := []struct {
		minor int64
		cur   string
		want  string
	}{
		{4500, "CNY", "¥45.00"},
		{5, "CNY", "¥0.05"},
		{0, "CNY", "¥0.00"},
		{123456, "USD", "$1,234.56"},
		{100000000, "EUR", "€1,000,000.00"},
		{-4500, "CNY", "-¥45.00"},
		{1999, "GBP", "£19.99"},
		{1999, "CHF", "CHF 19.99"},
		{4500, "JPY", "JPY 4,500"},
	}
	for _, tc := range cases {
		if got := views.Money(tc.minor, tc.cur); got != tc.want {
			t.Errorf("Money(%d, %s) = %q, want %q", tc.minor, tc.cur, got, tc.want)
		}
	}
}

func TestGroupByDayUsesCinemaZone(t *testing.T) {
	now := time.Date(2025, 11, 30, 2, 0, 0, 0, time.UTC)                                      // 10:00 Sun 30 Nov in Shanghai
	late := &services.Show{ID: 1, StartsAt: time.Date(2025, 11, 30, 15, 0, 0, 0, time.UTC)}   // 23:00 Sun
	after := &services.Show{ID: 2, StartsAt: time.Date(2025, 11, 30, 16, 30, 0, 0, time.UTC)} // 00:30 Mon
	days := views.GroupByDay([]*services.Show{late, after}, now, shanghai, 7)
	if len(days) != 7 {
		t.Fatalf("days = %d", len(days))
	}
	if len(days[0].Shows) != 1 || days[0].Shows[0].ID != 1 || len(days[1].Shows) != 1 || days[1].Shows[0].ID != 2 {
		t.Errorf("grouping wrong: %+v", days[:2])
	}
	if days[0].Heading != "Today · Sun 30 Nov" || days[1].Heading != "Tomorrow · Mon 1 Dec" {
		t.Errorf("headings %q, %q", days[0].Heading, days[1].Heading)
	}
}

func TestShowStateBadges(t *testing.T) {
	now := time.Now().UTC()
	s := fixtureMap(now).Show
	if st := views.En.StateOf(s, now, shanghai); st.Label != "on sale" || !st.OnSale {
		t.Errorf("on sale: %+v", st)
	}
	s.SeatsLeft = 0
	if st := views.En.StateOf(s, now, shanghai); st.Label != "no seats free" || st.OnSale {
		t.Errorf("no seats free: %+v", st)
	}
	s.SeatsLeft, s.SaleOpensAt = 3, now.Add(time.Hour)
	if st := views.En.StateOf(s, now, shanghai); !strings.HasPrefix(st.Label, "sale opens ") {
		t.Errorf("upcoming: %+v", st)
	}
	s.SaleOpensAt, s.SaleClosesAt = now.Add(-2*time.Hour), now.Add(-time.Hour)
	if st := views.En.StateOf(s, now, shanghai); st.Label != "closed" {
		t.Errorf("closed: %+v", st)
	}
}

func TestLocalPathRefusesOtherSites(t *testing.T) {
	for in, ok := range map[string]bool{
		"/shows/42": true, "/orders?x=1": true, "/": true,
		"": false, "//evil.example": false, "/\\evil.example": false, "https://evil.example": false,
		"evil": false, "/a\r\nSet-Cookie: x": false,
	} {
		if _, got := localPath(in); got != ok {
			t.Errorf("localPath(%q) = %v, want %v", in, got, ok)
		}
	}
}

func TestSeatIDs(t *testing.T) {
	ids, problem := seatIDs([][]byte{[]byte("12"), []byte("13"), []byte("12")})
	if problem != "" || len(ids) != 2 || ids[0] != 12 || ids[1] != 13 {
		t.Errorf("got %v %q", ids, problem)
	}
	if _, problem := seatIDs([][]byte{[]byte("x")}); problem == "" {
		t.Error("a non-numeric seat was accepted")
	}
	if _, problem := seatIDs([][]byte{[]byte("-1")}); problem == "" {
		t.Error("a negative seat was accepted")
	}
}

// --- handlers with fake services ------------------------------------------------------

// serviceCalls records which fake service methods ran, as "Service.Method".
type serviceCalls struct {
	mu    sync.Mutex
	names []string
}

func (s *serviceCalls) add(name string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.names = append(s.names, name)
}

// take returns the calls so far and forgets them.
func (s *serviceCalls) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.names
	s.names = nil
	return out
}

type fakeShows struct {
	m       *seats.SeatMap
	calls   *serviceCalls
	version atomic.Uint64 // SeatMapVersion
}

func (f *fakeShows) OnDate(context.Context, string, int64) ([]*services.Show, error) {
	f.calls.add("Shows.OnDate")
	return nil, nil
}
func (f *fakeShows) Between(_ context.Context, from, to time.Time) ([]*services.Show, error) {
	f.calls.add("Shows.Between")
	return []*services.Show{f.m.Show}, nil
}
func (f *fakeShows) Get(_ context.Context, id int64) (*services.Show, error) {
	f.calls.add("Shows.Get")
	if id != f.m.Show.ID {
		return nil, &services.Error{Code: services.CodeNotFound, Message: "show not found"}
	}
	return f.m.Show, nil
}
func (f *fakeShows) SeatMap(ctx context.Context, id int64) (*seats.SeatMap, error) {
	if _, err := f.Get(ctx, id); err != nil {
		return nil, err
	}
	return f.m, nil
}

// SeatMapOf answers the whole map, as the fake has no Redis to read a part of.
func (f *fakeShows) SeatMapOf(ctx context.Context, id int64, _ func(*services.Hall) []int64, _ int64) (*seats.SeatMap, error) {
	return f.SeatMap(ctx, id)
}
func (f *fakeShows) SeatMapVersion(int64) uint64 { return f.version.Load() }

// SeatStates answers the fake map's states in its hall's seat order.
func (f *fakeShows) SeatStates(ctx context.Context, id int64) (*services.Hall, []string, error) {
	m, err := f.SeatMap(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	states := make([]string, len(m.Hall.Seats))
	for i, s := range m.Hall.Seats {
		states[i] = m.States[s.ID]
	}
	return m.Hall, states, nil
}
func (f *fakeShows) Today() string        { return "" }
func (f *fakeShows) Zone() *time.Location { return shanghai }

type fakeOrders struct {
	order     *services.Order // what Get answers (NOT_FOUND when nil)
	createErr error
	got       orders.CreateOrderRequest
	calls     *serviceCalls
}

func (f *fakeOrders) Create(_ context.Context, req orders.CreateOrderRequest) (*services.Order, error) {
	f.calls.add("Orders.Create")
	f.got = req
	if f.createErr != nil {
		return nil, f.createErr
	}
	return &services.Order{OrderNo: "0MI8K2J3LQ2ZKX7"}, nil
}
func (f *fakeOrders) ByNo(_ context.Context, no string) (*services.Order, error) {
	f.calls.add("Orders.ByNo")
	if f.order != nil && f.order.OrderNo == no {
		return f.order, nil
	}
	return nil, &services.Error{Code: services.CodeNotFound, Message: "order not found"}
}

func (f *fakeOrders) Get(_ context.Context, _ int64, no string) (*services.Order, error) {
	f.calls.add("Orders.Get")
	if f.order != nil && f.order.OrderNo == no {
		return f.order, nil
	}
	return nil, &services.Error{Code: services.CodeNotFound, Message: "order not found"}
}
func (f *fakeOrders) List(context.Context, int64, int) ([]*services.Order, error) {
	f.calls.add("Orders.List")
	return nil, nil
}
func (f *fakeOrders) Cancel(context.Context, int64, string) (*services.Order, error) {
	f.calls.add("Orders.Cancel")
	return nil, &services.Error{Code: services.CodeNotFound, Message: "order not found"}
}
func (f *fakeOrders) Exchange(context.Context, orders.ExchangeRequest) (*services.Order, error) {
	f.calls.add("Orders.Exchange")
	return nil, &services.Error{Code: services.CodeNotFound, Message: "order not found"}
}
func (f *fakeOrders) HoldFor() time.Duration { return 15 * time.Minute }

// demoPayment is the one payment the fake provider knows.
var demoPayment = orders.Payment{PaymentID: "pay_abc123", AmountMinor: 9000, Currency: "CNY", Status: "started", OrderNo: "0MI8K2J3LQ2ZKX7"}

type fakePayments struct{ calls *serviceCalls }

func (f fakePayments) Start(context.Context, int64, string, string) (*orders.Payment, string, error) {
	f.calls.add("Payments.Start")
	return &demoPayment, "/pay/demo/" + demoPayment.PaymentID, nil
}
func (f fakePayments) Payment(_ context.Context, id string) (*orders.Payment, error) {
	f.calls.add("Payments.Payment")
	if id != demoPayment.PaymentID {
		return nil, &services.Error{Code: services.CodeNotFound, Message: "payment not found"}
	}
	p := demoPayment
	return &p, nil
}
func (f fakePayments) HandleWebhook(context.Context, string, []byte, string) (*orders.Payment, error) {
	f.calls.add("Payments.HandleWebhook")
	return nil, &services.Error{Code: services.CodeUnauthenticated, Message: "bad signature"}
}
func (f fakePayments) SignatureHeader(string) string { return orders.DefaultSignatureHeader }
func (f fakePayments) Cancel(context.Context, int64, string) (*services.Order, error) {
	f.calls.add("Payments.Cancel")
	return nil, &services.Error{Code: services.CodeNotFound, Message: "order not found"}
}
func (f fakePayments) DemoDecide(_ context.Context, id string, approve bool) (*orders.Payment, error) {
	f.calls.add("Payments.DemoDecide:" + strconv.FormatBool(approve))
	p := demoPayment
	return &p, nil
}

type fakeUsers struct{ calls *serviceCalls }

func (f fakeUsers) Register(context.Context, string, string, string) (int64, error) {
	f.calls.add("Users.Register")
	return 7, nil
}
func (f fakeUsers) Login(_ context.Context, email, password string) (string, *services.User, error) {
	f.calls.add("Users.Login")
	if password != "right-password" {
		return "", nil, &services.Error{Code: services.CodeUnauthenticated, Message: "wrong email or password"}
	}
	return "tok-7", buyer, nil
}
func (f fakeUsers) Authenticate(_ context.Context, token string) (*services.User, error) {
	f.calls.add("Users.Authenticate")
	if token == "tok-7" {
		return buyer, nil
	}
	return nil, &services.Error{Code: services.CodeUnauthenticated, Message: "sign in first"}
}
func (f fakeUsers) Logout(context.Context, string) error {
	f.calls.add("Users.Logout")
	return nil
}
func (f fakeUsers) SetLang(context.Context, int64, string) error {
	f.calls.add("Users.SetLang")
	return nil
}

type fakeLimiter struct{ calls *serviceCalls }

func (f fakeLimiter) AllowRegister(context.Context, string) error {
	f.calls.add("Limiter.AllowRegister")
	return nil
}

func (f fakeLimiter) AllowLogin(context.Context, string, string) error {
	f.calls.add("Limiter.AllowLogin")
	return nil
}

// testApp is the pages with fake services behind the session and CSRF middleware, as
// web wires them (the CSRF tokens in this process's memory).
func testApp(m *seats.SeatMap, orders *fakeOrders) *fiber.App {
	calls := orders.calls
	d := &Deps{SharedDeps: SharedDeps{Shows: &fakeShows{m: m, calls: calls}, Users: fakeUsers{calls}},
		BuyerDeps:   BuyerDeps{Orders: orders, Payments: fakePayments{calls}, Limiter: fakeLimiter{calls}},
		ConsoleDeps: ConsoleDeps{Currency: "CNY"}}
	app := fiber.New(fiber.Config{ErrorHandler: ErrorHandler})
	app.Use(DemoPayments(true))
	app.Use(d.Authenticate)
	app.Use(d.CSRF(nil))
	d.Routes(app)
	return app
}

// do sends a request with the session cookie (when not ""); a form that carries a
// CSRF token also sends it as the CSRF cookie, as a browser that loaded the form would.
func do(t *testing.T, app *fiber.App, method, target string, form url.Values, cookie string) (*http.Response, string) {
	t.Helper()
	var cookies []*http.Cookie
	if cookie != "" {
		cookies = append(cookies, &http.Cookie{Name: SessionCookie, Value: cookie})
	}
	if tok := form.Get(views.CSRFField); tok != "" {
		// the field carries the token bound to the session, as the pages render it
		cookies = append(cookies, &http.Cookie{Name: CSRFCookie, Value: tok})
		bound := url.Values{}
		for k, v := range form {
			bound[k] = v
		}
		bound.Set(views.CSRFField, csrfBind(cookie, tok))
		form = bound
	}
	return send(t, app, method, target, form, cookies...)
}

// send sends a request with exactly the form and cookies given.
func send(t *testing.T, app *fiber.App, method, target string, form url.Values, cookies ...*http.Cookie) (*http.Response, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req := httptest.NewRequest(method, target, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for _, c := range cookies {
		req.AddCookie(c)
	}
	res, err := app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// issuedCSRF loads the sign-in page as a fresh browser and returns the CSRF token it
// issued, checking the cookie and the form's hidden field agree.
func issuedCSRF(t *testing.T, app *fiber.App) string {
	t.Helper()
	res, body := do(t, app, "GET", "/login", nil, "")
	var ck *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == CSRFCookie {
			ck = c
		}
	}
	if ck == nil || ck.Value == "" {
		t.Fatalf("GET /login set no %s cookie: %q", CSRFCookie, res.Header.Values("Set-Cookie"))
	}
	if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Path != "/" || ck.Secure {
		t.Errorf("CSRF cookie = %+v, want HttpOnly, SameSite=Lax, Path=/, not Secure", ck)
	}
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(body))
	if field := doc.Find(`form[action="/login"] input[type="hidden"][name="`+views.CSRFField+`"]`).AttrOr("value", ""); field != csrfBind("", ck.Value) {
		t.Fatalf("form token %q, cookie token %q", field, ck.Value)
	}
	return ck.Value
}

// withCSRF is form plus the CSRF token field.
func withCSRF(form url.Values, token string) url.Values {
	out := url.Values{views.CSRFField: {token}}
	for k, v := range form {
		out[k] = v
	}
	return out
}

func TestBookRedirectsAndRerendersOnSeatTaken(t *testing.T) {
	now := time.Now().UTC()
	orders := &fakeOrders{}
	app := testApp(fixtureMap(now), orders)
	tok := issuedCSRF(t, app)
	form := withCSRF(url.Values{"seat": {strconv.FormatInt(seatID(2, 4), 10), strconv.FormatInt(seatID(2, 5), 10)}}, tok)

	res, _ := do(t, app, "POST", "/shows/42/book", form, "")
	if res.StatusCode != fiber.StatusSeeOther || res.Header.Get("Location") != "/login?next=/shows/42%3Fseat%3D124%26seat%3D125" {
		t.Errorf("signed out: %d %q", res.StatusCode, res.Header.Get("Location"))
	}

	res, _ = do(t, app, "POST", "/shows/42/book", form, "tok-7")
	if res.StatusCode != fiber.StatusSeeOther || res.Header.Get("Location") != "/orders/0MI8K2J3LQ2ZKX7" {
		t.Errorf("booked: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	if orders.got.UserID != 7 || orders.got.ShowID != 42 || len(orders.got.SeatIDs) != 2 {
		t.Errorf("request = %+v", orders.got)
	}

	res, _ = do(t, app, "POST", "/shows/42/book", withCSRF(url.Values{}, tok), "tok-7")
	_, body := followFlash(t, app, res, "tok-7")
	if !strings.Contains(body, "Pick at least one seat") {
		t.Errorf("empty: %d", res.StatusCode)
	}

	orders.createErr = &services.Error{Code: services.CodeSeatTaken, Message: "already taken: B2", Seats: []string{"B2"}}
	form = withCSRF(url.Values{"seat": {strconv.FormatInt(seatID(2, 2), 10), strconv.FormatInt(seatID(2, 4), 10)}}, tok)
	res, _ = do(t, app, "POST", "/shows/42/book", form, "tok-7")
	res, body = followFlash(t, app, res, "tok-7")
	if res.StatusCode != fiber.StatusOK || !strings.Contains(body, "Sorry, B2 was just taken by someone else.") {
		t.Errorf("seat taken: %d", res.StatusCode)
	}
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(body))
	if _, ok := seatInput(doc, seatID(2, 4)).Attr("checked"); !ok {
		t.Error("the other selection is not kept")
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("content type %q", ct)
	}
}

func TestLoginSetsCookieAndHonoursLocalNext(t *testing.T) {
	app := testApp(fixtureMap(time.Now().UTC()), &fakeOrders{})
	tok := issuedCSRF(t, app)
	res, body := do(t, app, "POST", "/login", withCSRF(url.Values{"email": {"mei@seatflow.test"}, "password": {"wrong"}, "next": {"/shows/42"}}, tok), "")
	if res.StatusCode != fiber.StatusUnauthorized || !strings.Contains(body, "Wrong email or password") || !strings.Contains(body, `value="mei@seatflow.test"`) {
		t.Errorf("bad login: %d", res.StatusCode)
	}
	if strings.Contains(body, "wrong\"") {
		t.Error("the password was echoed")
	}
	res, _ = do(t, app, "POST", "/login", withCSRF(url.Values{"email": {"mei@seatflow.test"}, "password": {"right-password"}, "next": {"/shows/42"}}, tok), "")
	if res.StatusCode != fiber.StatusSeeOther || res.Header.Get("Location") != "/shows/42" {
		t.Errorf("login: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	ck := ""
	for _, c := range res.Header.Values("Set-Cookie") {
		if strings.HasPrefix(c, SessionCookie+"=") {
			ck = c
		}
	}
	for _, want := range []string{SessionCookie + "=tok-7", "HttpOnly", "SameSite=Lax", "path=/"} {
		if !strings.Contains(strings.ToLower(ck), strings.ToLower(want)) {
			t.Errorf("cookie %q lacks %s", ck, want)
		}
	}
	tok = issuedCSRF(t, app) // signing in rotated the first one
	res, _ = do(t, app, "POST", "/login", withCSRF(url.Values{"email": {"mei@seatflow.test"}, "password": {"right-password"}, "next": {"//evil.example/x"}}, tok), "")
	if res.Header.Get("Location") != "/" {
		t.Errorf("foreign next followed: %q", res.Header.Get("Location"))
	}
	res, body = do(t, app, "GET", "/", nil, "tok-7")
	if res.StatusCode != 200 || !strings.Contains(body, "Mei") || !strings.Contains(body, "Copper Sparrow") {
		t.Errorf("home signed in: %d", res.StatusCode)
	}
	res, _ = do(t, app, "GET", "/orders/NOPE", nil, "tok-7")
	if res.StatusCode != fiber.StatusNotFound {
		t.Errorf("unknown order: %d", res.StatusCode)
	}
}

// --- CSRF -----------------------------------------------------------------------------

func TestEveryPostFormCarriesTheCSRFToken(t *testing.T) {
	now := time.Date(2025, 11, 30, 11, 30, 0, 0, time.UTC)
	m := fixtureMap(now)
	pg := views.Page{Title: "t", User: buyer, Path: "/x", CSRF: "tok-abc"}
	order := &services.Order{OrderNo: "0MI8K2J3LQ2ZKX7", UserID: 7, ShowID: 42, Status: services.OrderPending, TotalMinor: 4500,
		Currency: "CNY", CreatedAt: now, ExpiresAt: now.Add(15 * time.Minute),
		Seats: []services.OrderSeat{{SeatID: seatID(2, 4), Label: "B3", ZoneCode: "standard", PriceMinor: 4500}}}
	show := showProps(now)
	show.Page = pg
	signedOut := pg
	signedOut.User = nil
	pages := map[string]struct {
		c     templ.Component
		forms int
	}{
		"show":     {views.ShowPage(show), 3}, // booking + best available + sign out
		"order":    {views.OrderPage(views.OrderPageProps{Page: pg, Order: order, Show: m.Show, Now: now, Zone: shanghai}), 3},
		"demo pay": {views.DemoPayPage(views.DemoPayProps{Page: pg, Payment: paymentView(&demoPayment)}), 3},
		"login":    {views.LoginPage(views.AuthFormProps{Page: signedOut, Next: "/shows/42"}), 1},
		"register": {views.RegisterPage(views.AuthFormProps{Page: signedOut}), 1},
		"error":    {views.ErrorPage(views.ErrorPageProps{Page: pg, Status: 404, Message: "gone"}), 1},
	}
	for name, p := range pages {
		doc := renderDoc(t, p.c)
		forms := doc.Find(`form`)
		if forms.Length() != p.forms {
			t.Errorf("%s: %d forms, want %d", name, forms.Length(), p.forms)
		}
		forms.Each(func(_ int, f *goquery.Selection) {
			if m := strings.ToLower(f.AttrOr("method", "")); m != "post" {
				t.Errorf("%s: form %s has method %q", name, f.AttrOr("action", ""), m)
			}
			in := f.Find(`input[type="hidden"][name="` + views.CSRFField + `"]`)
			if in.Length() != 1 || in.AttrOr("value", "") != "tok-abc" {
				t.Errorf("%s: form %s lacks the CSRF token", name, f.AttrOr("action", ""))
			}
		})
	}
	// a page without a token (the one refusing a forged form) offers no sign-out form
	// that would be refused in turn
	pg.CSRF = ""
	doc := renderDoc(t, views.ErrorPage(views.ErrorPageProps{Page: pg, Status: 403, Message: "no"}))
	if doc.Find(`form`).Length() != 0 || !strings.Contains(doc.Find(".user-name").Text(), "Mei") {
		t.Error("a page without a CSRF token renders a form, or forgets who is signed in")
	}
}

func TestFormPostWithoutCSRFTokenIsRefused(t *testing.T) {
	calls := &serviceCalls{}
	app := testApp(fixtureMap(time.Now().UTC()), &fakeOrders{calls: calls})
	tok := issuedCSRF(t, app)
	other := issuedCSRF(t, app) // a valid token of another visitor
	if tok == other {
		t.Fatal("two visitors got the same token")
	}
	forms := []struct {
		target string
		form   url.Values
	}{
		{"/shows/42/book", url.Values{"seat": {strconv.FormatInt(seatID(2, 4), 10)}}},
		{"/orders/0MI8K2J3LQ2ZKX7/pay", url.Values{}},
		{"/orders/0MI8K2J3LQ2ZKX7/cancel", url.Values{}},
		{"/pay/demo/pay_abc123/approve", url.Values{}},
		{"/pay/demo/pay_abc123/decline", url.Values{}},
		{"/login", url.Values{"email": {"mei@seatflow.test"}, "password": {"right-password"}}},
		{"/register", url.Values{"name": {"Mallory"}, "email": {"mallory@evil.test"}, "password": {"password-123"}}},
		{"/logout", url.Values{}},
	}
	csrfCookie := func(v string) *http.Cookie { return &http.Cookie{Name: CSRFCookie, Value: v} }
	forgeries := []struct {
		name    string
		field   string
		cookies []*http.Cookie
	}{
		{"no token", "", nil},
		{"cookie but no field", "", []*http.Cookie{csrfCookie(tok)}},
		{"field but no cookie", tok, nil},
		{"another visitor's field", other, []*http.Cookie{csrfCookie(tok)}},
		{"made-up pair", "11111111-2222-4333-8444-555555555555", []*http.Cookie{csrfCookie("11111111-2222-4333-8444-555555555555")}},
	}
	calls.take()
	for _, f := range forms {
		for _, fg := range forgeries {
			for _, signedIn := range []bool{true, false} {
				form := f.form
				if fg.field != "" {
					form = withCSRF(f.form, fg.field)
				}
				cookies := fg.cookies
				if signedIn {
					cookies = append([]*http.Cookie{{Name: SessionCookie, Value: "tok-7"}}, cookies...)
				}
				what := fmt.Sprintf("POST %s, %s, signed in %v", f.target, fg.name, signedIn)
				res, body := send(t, app, "POST", f.target, form, cookies...)
				if res.StatusCode != fiber.StatusForbidden {
					t.Errorf("%s: %d, want 403", what, res.StatusCode)
					continue
				}
				if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
					t.Errorf("%s: content type %q", what, ct)
				}
				doc, _ := goquery.NewDocumentFromReader(strings.NewReader(body))
				if msg := doc.Find(".error-page").Text(); !strings.Contains(msg, "This form has expired or came from another site; go back, reload and try again.") {
					t.Errorf("%s: page says %q", what, msg)
				}
				if doc.Find("header.site-header").Length() != 1 || (doc.Find(".user-name").Text() == "Mei") != signedIn {
					t.Errorf("%s: the error page is not in the layout with the visitor", what)
				}
				for _, c := range res.Cookies() {
					if c.Name == SessionCookie {
						t.Errorf("%s: the session cookie was touched: %v", what, c)
					}
				}
				want := []string(nil)
				if signedIn {
					want = []string{"Users.Authenticate"} // the session lookup, read-only
				}
				if got := calls.take(); strings.Join(got, ",") != strings.Join(want, ",") {
					t.Errorf("%s: services called %v, want %v", what, got, want)
				}
			}
		}
	}
	// the same forms with a token go through to their handlers (a fresh token each:
	// signing in rotates it)
	for _, f := range forms {
		tok := issuedCSRF(t, app)
		calls.take()
		res, _ := do(t, app, "POST", f.target, withCSRF(f.form, tok), "tok-7")
		got := calls.take()
		if res.StatusCode == fiber.StatusForbidden || len(got) < 2 {
			t.Errorf("POST %s with the token: %d, services called %v", f.target, res.StatusCode, got)
		}
	}
}

// TestCSRF_BoundToSessionAndRotatedAtSignIn: a form's token only posts within the
// session it was rendered for (one from before sign-in, or bound to another session, is
// refused), and signing in ends the token the browser had.
func TestCSRF_BoundToSessionAndRotatedAtSignIn(t *testing.T) {
	calls := &serviceCalls{}
	app := testApp(fixtureMap(time.Now().UTC()), &fakeOrders{calls: calls})
	post := func(tok, field, session string) int {
		cookies := []*http.Cookie{{Name: CSRFCookie, Value: tok}}
		if session != "" {
			cookies = append(cookies, &http.Cookie{Name: SessionCookie, Value: session})
		}
		res, _ := send(t, app, "POST", "/orders/0MI8K2J3LQ2ZKX7/cancel", url.Values{views.CSRFField: {field}}, cookies...)
		return res.StatusCode
	}
	tok := issuedCSRF(t, app)
	for name, field := range map[string]string{
		"the bare token":               tok,
		"bound to the signed-out page": csrfBind("", tok),
		"bound to another session":     csrfBind("tok-other", tok),
		"a forged mac":                 tok + ".AAAAAAAAAAAAAAAAAAAAAA",
	} {
		if st := post(tok, field, "tok-7"); st != fiber.StatusForbidden {
			t.Errorf("%s: %d, want 403", name, st)
		}
	}
	if st := post(tok, csrfBind("tok-7", tok), "tok-7"); st == fiber.StatusForbidden {
		t.Fatalf("the bound token is refused: %d", st)
	}
	// sign in with the token of the signed-out page: afterwards that token is gone
	res, _ := do(t, app, "POST", "/login", withCSRF(url.Values{"email": {"mei@seatflow.test"}, "password": {"right-password"}}, tok), "")
	if res.StatusCode != fiber.StatusSeeOther {
		t.Fatalf("login: %d", res.StatusCode)
	}
	expired := false
	for _, c := range res.Cookies() {
		if c.Name == CSRFCookie && (c.MaxAge < 0 || c.Value == "") {
			expired = true
		}
	}
	if !expired {
		t.Errorf("sign-in left the CSRF cookie: %q", res.Header.Values("Set-Cookie"))
	}
	if st := post(tok, csrfBind("tok-7", tok), "tok-7"); st != fiber.StatusForbidden {
		t.Errorf("the token from before sign-in still posts: %d", st)
	}
}

// TestDemoApproveLikeTheContractChecker submits the approve form as the contract checker
// does: GET the provider's page without cookies, send back its Set-Cookie values and the
// form's inputs.
func TestDemoApproveLikeTheContractChecker(t *testing.T) {
	calls := &serviceCalls{}
	app := testApp(fixtureMap(time.Now().UTC()), &fakeOrders{calls: calls})
	page, body := do(t, app, "GET", "/pay/demo/pay_abc123", nil, "")
	if page.StatusCode != 200 {
		t.Fatalf("demo page: %d", page.StatusCode)
	}
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(body))
	form := doc.Find(`form[method="post"][action$="/approve"]`)
	vals := url.Values{}
	form.Find("input").Each(func(_ int, in *goquery.Selection) {
		if n := in.AttrOr("name", ""); n != "" && in.AttrOr("type", "") != "submit" {
			vals.Set(n, in.AttrOr("value", ""))
		}
	})
	req := httptest.NewRequest("POST", form.AttrOr("action", ""), strings.NewReader(vals.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, c := range page.Header.Values("Set-Cookie") {
		req.Header.Add("Cookie", strings.SplitN(c, ";", 2)[0])
	}
	calls.take()
	res, err := app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != fiber.StatusSeeOther || res.Header.Get("Location") != "/orders/0MI8K2J3LQ2ZKX7?payment=pay_abc123" {
		t.Errorf("approve: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	if got := calls.take(); strings.Join(got, ",") != "Payments.DemoDecide:true" {
		t.Errorf("services called %v", got)
	}
}

func TestCSRFSkipsAPIStaticAndOpsAndHonoursSecureCookies(t *testing.T) {
	app := fiber.New(fiber.Config{ErrorHandler: ErrorHandler})
	app.Use((&Deps{SharedDeps: SharedDeps{SecureCookies: true}}).CSRF(nil))
	ok := func(c *fiber.Ctx) error { return c.SendString("ok") }
	skipped := []string{"/api/v1/payments/demo/webhook", "/api/v1/orders/X/pay", "/static/css/app.css", "/healthz", "/readyz", "/metrics"}
	guarded := []string{"/apiary", "/staticky", "/healthz-not", "/login"}
	for _, p := range append(append([]string{}, skipped...), guarded...) {
		app.Post(p, ok)
	}
	app.Get("/login", ok)
	for _, p := range skipped {
		if res, _ := send(t, app, "POST", p, url.Values{}); res.StatusCode != 200 {
			t.Errorf("POST %s without a token: %d, want 200 (not a browser form)", p, res.StatusCode)
		}
	}
	for _, p := range guarded {
		if res, _ := send(t, app, "POST", p, url.Values{}); res.StatusCode != fiber.StatusForbidden {
			t.Errorf("POST %s without a token: %d, want 403", p, res.StatusCode)
		}
	}
	res, _ := send(t, app, "GET", "/login", nil)
	if cs := res.Cookies(); len(cs) != 1 || cs[0].Name != CSRFCookie || !cs[0].Secure || !cs[0].HttpOnly || cs[0].SameSite != http.SameSiteLaxMode {
		t.Errorf("CSRF cookie with SecureCookies: %q", res.Header.Values("Set-Cookie"))
	}
}
