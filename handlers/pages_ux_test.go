package handlers

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/orders"
	"seatflow/views"
)

// followFlash checks res is the 303 back to the show's page after a refused booking and
// loads that page as the browser would (with the flash cookie and the session).
func followFlash(t *testing.T, app *fiber.App, res *http.Response, session string) (*http.Response, string) {
	t.Helper()
	if res.StatusCode != fiber.StatusSeeOther || res.Header.Get("Location") != "/shows/42" {
		t.Fatalf("refused booking answered %d %q, want 303 to /shows/42", res.StatusCode, res.Header.Get("Location"))
	}
	var flash *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == bookFlashCookie {
			flash = c
		}
	}
	if flash == nil || flash.Path != "/shows/42" || !flash.HttpOnly {
		t.Fatalf("flash cookie = %+v", flash)
	}
	cookies := []*http.Cookie{{Name: bookFlashCookie, Value: flash.Value}}
	if session != "" {
		cookies = append(cookies, &http.Cookie{Name: SessionCookie, Value: session})
	}
	res, body := send(t, app, "GET", "/shows/42", nil, cookies...)
	cleared := false
	for _, c := range res.Cookies() {
		cleared = cleared || c.Name == bookFlashCookie && c.Value == "" && (c.MaxAge < 0 || !c.Expires.IsZero() && c.Expires.Before(time.Now()))
	}
	if !cleared {
		t.Error("the show page did not clear the flash cookie (a reload would tell it again)")
	}
	return res, body
}

func TestRefusedBookingRedirectsToTheShowWithMessageAndPicks(t *testing.T) {
	now := time.Now().UTC()
	pick := strconv.FormatInt(seatID(2, 4), 10)
	cases := []struct {
		name string
		err  *services.Error
		want string
	}{
		{"rate limited", &services.Error{Code: services.CodeRateLimited, Message: "slow down", RetryAfterS: 7}, "Too many attempts — retry in 7 s."},
		{"unavailable", &services.Error{Code: services.CodeUnavailable, Message: "redis down"}, "Booking is briefly unavailable; nothing was booked."},
		{"limit", &services.Error{Code: services.CodeLimitExceeded, Message: "purchase limit is 4 seats per show"},
			"That is more than the limit of 4 seats per person for this show: you already have 1 (held or paid), so you can pick 3 more."},
		{"other", &services.Error{Code: services.CodeNoAdjacentSeats, Message: "no 2 seats side by side"}, "No 2 seats side by side."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			orders := &fakeOrders{createErr: tc.err}
			app := testApp(fixtureMap(now), orders)
			tok := issuedCSRF(t, app)
			res, _ := do(t, app, "POST", "/shows/42/book", withCSRF(url.Values{"seat": {pick}}, tok), "tok-7")
			res, body := followFlash(t, app, res, "tok-7")
			if res.StatusCode != fiber.StatusOK || !strings.Contains(body, tc.want) {
				t.Errorf("show page after refusal: %d, want %q in the alert", res.StatusCode, tc.want)
			}
			doc, _ := goquery.NewDocumentFromReader(strings.NewReader(body))
			if _, ok := seatInput(doc, seatID(2, 4)).Attr("checked"); !ok {
				t.Error("the pick is not kept")
			}
		})
	}
}

func TestBookingRedirectIsNotAPostOnlyURL(t *testing.T) {
	app := testApp(fixtureMap(time.Now().UTC()), &fakeOrders{})
	// a reload of the address bar after the redirect is a GET of the show: fine
	res, _ := do(t, app, "GET", "/shows/42", nil, "tok-7")
	if res.StatusCode != fiber.StatusOK {
		t.Errorf("GET /shows/42 = %d", res.StatusCode)
	}
}

func TestOrderPageTellsHowThePaymentEnded(t *testing.T) {
	now := time.Date(2025, 11, 30, 11, 30, 0, 0, time.UTC) // 19:30 in Shanghai
	m := fixtureMap(now)
	order := &services.Order{OrderNo: "0MI8K2J3LQ2ZKX7", UserID: 7, ShowID: 42, Status: services.OrderPending, TotalMinor: 9000,
		Currency: "CNY", CreatedAt: now, ExpiresAt: now.Add(15 * time.Minute),
		Seats: []services.OrderSeat{{SeatID: seatID(1, 1), Label: "A1", ZoneCode: "standard", PriceMinor: 4500}, {SeatID: seatID(1, 2), Label: "A2", ZoneCode: "standard", PriceMinor: 4500}}}
	cases := []struct {
		name, payStatus, orderStatus, payOrderNo, want string
	}{
		{"declined", "declined", services.OrderPending, order.OrderNo, "Your payment was declined; nothing was charged. You can try again before 19:45."},
		{"refunded", "refunded", services.OrderExpired, order.OrderNo, "Your payment of ¥90.00 arrived after the deadline and was refunded."},
		{"another order's payment", "declined", services.OrderPending, "OTHER", ""},
		{"approved", "approved", services.OrderPaid, order.OrderNo, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := *order
			o.Status = tc.orderStatus
			pay := &orders.Payment{PaymentID: "pay_1", AmountMinor: 9000, Currency: "CNY", Status: tc.payStatus, OrderNo: tc.payOrderNo}
			doc := renderDoc(t, views.OrderPage(views.OrderPageProps{Page: views.Page{User: buyer}, Order: &o, Show: m.Show, Now: now, Zone: shanghai,
				Payment: paymentView(pay), SeatKinds: map[int64]string{seatID(1, 1): services.KindWheelchair, seatID(1, 2): services.KindCompanion}}))
			got := strings.TrimSpace(doc.Find(".payment-note").Text())
			if got != tc.want {
				t.Errorf("payment note = %q, want %q", got, tc.want)
			}
			rows := doc.Find(".order-seats tbody tr")
			if !strings.Contains(rows.Eq(0).Text(), "wheelchair space") || !strings.Contains(rows.Eq(1).Text(), "companion seat") {
				t.Errorf("seat kinds not listed: %q / %q", rows.Eq(0).Text(), rows.Eq(1).Text())
			}
		})
	}
}

func TestOrderPageReadsThePaymentOfItsOwnOrderOnly(t *testing.T) {
	now := time.Now().UTC()
	orders := &fakeOrders{calls: &serviceCalls{}, order: &services.Order{OrderNo: demoPayment.OrderNo, UserID: 7, ShowID: 42,
		Status: services.OrderPending, TotalMinor: 9000, Currency: "CNY", CreatedAt: now, ExpiresAt: now.Add(10 * time.Minute)}}
	app := testApp(fixtureMap(now), orders)
	tok := issuedCSRF(t, app)
	res, _ := do(t, app, "POST", "/pay/demo/"+demoPayment.PaymentID+"/decline", withCSRF(url.Values{}, tok), "tok-7")
	if loc := res.Header.Get("Location"); loc != "/orders/"+demoPayment.OrderNo+"?payment="+demoPayment.PaymentID {
		t.Fatalf("after the provider: %d %q", res.StatusCode, loc)
	}
	orders.calls.take()
	_, body := do(t, app, "GET", "/orders/"+demoPayment.OrderNo+"?payment="+demoPayment.PaymentID, nil, "tok-7")
	if !slices.Contains(orders.calls.take(), "Payments.Payment") || !strings.Contains(body, "Order") {
		t.Error("the order page did not read the payment it was given")
	}
}

func TestCancelNeedsConfirmation(t *testing.T) {
	now := time.Now().UTC()
	orders := &fakeOrders{calls: &serviceCalls{}, order: &services.Order{OrderNo: "0MI8K2J3LQ2ZKX7", UserID: 7, ShowID: 42,
		Status: services.OrderPending, TotalMinor: 4500, Currency: "CNY", CreatedAt: now, ExpiresAt: now.Add(10 * time.Minute)}}
	app := testApp(fixtureMap(now), orders)
	tok := issuedCSRF(t, app)
	res, body := do(t, app, "POST", "/orders/0MI8K2J3LQ2ZKX7/cancel", withCSRF(url.Values{}, tok), "tok-7")
	if res.StatusCode != fiber.StatusBadRequest || !strings.Contains(body, "Nothing was cancelled") {
		t.Errorf("unconfirmed cancel: %d", res.StatusCode)
	}
	if slices.Contains(orders.calls.take(), "Payments.Cancel") {
		t.Error("an unconfirmed cancel reached the service")
	}
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(body))
	if doc.Find(`form[action$="/cancel"] input[type="checkbox"][name="confirm"][required]`).Length() != 1 {
		t.Error("the cancel form has no required confirm box")
	}
	do(t, app, "POST", "/orders/0MI8K2J3LQ2ZKX7/cancel", withCSRF(url.Values{"confirm": {"yes"}}, tok), "tok-7")
	if !slices.Contains(orders.calls.take(), "Payments.Cancel") {
		t.Error("a confirmed cancel did not reach the service")
	}
}

func TestErrorPagesAreFriendlyAndInTheLayout(t *testing.T) {
	cases := []struct {
		status int
		want   string
	}{
		{429, "Too many attempts — retry in 9 s."},
		{503, "Nothing was booked or charged."},
	}
	for _, tc := range cases {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			app := fiber.New(fiber.Config{ErrorHandler: ErrorHandler})
			app.Get("/x", func(c *fiber.Ctx) error {
				return errorPage(c, &services.Error{Code: map[int]string{429: services.CodeRateLimited, 503: services.CodeUnavailable}[tc.status], Message: "m", RetryAfterS: 9})
			})
			res, body := send(t, app, "GET", "/x", nil)
			if res.StatusCode != tc.status || !strings.Contains(body, tc.want) || !strings.Contains(body, `class="site-header"`) {
				t.Errorf("%d page: status %d, want %q in the layout", tc.status, res.StatusCode, tc.want)
			}
		})
	}
}

func TestOrderCountdownCarriesServerSeconds(t *testing.T) {
	now := time.Date(2025, 11, 30, 11, 30, 0, 0, time.UTC)
	order := &services.Order{OrderNo: "0MI8K2J3LQ2ZKX7", UserID: 7, ShowID: 42, Status: services.OrderPending, TotalMinor: 4500,
		Currency: "CNY", CreatedAt: now, ExpiresAt: now.Add(14*time.Minute + 5*time.Second)}
	doc := renderDoc(t, views.OrderPage(views.OrderPageProps{Page: views.Page{User: buyer}, Order: order, Now: now, Zone: shanghai}))
	box := doc.Find("[data-countdown]")
	if got := box.AttrOr("data-seconds-left", ""); got != "845" {
		t.Errorf("data-seconds-left = %q, want 845", got)
	}
	if got := box.Find("[data-countdown-clock]").Text(); got != "14:05" {
		t.Errorf("clock = %q", got)
	}
	if got := box.Find(".deadline").Text(); !strings.Contains(got, "Pay by 19:44") {
		t.Errorf("without JavaScript the deadline time is not shown: %q", got)
	}
	if doc.Find(`script[src="/static/js/order.js"][defer]`).Length() != 1 {
		t.Error("the countdown script is not loaded")
	}
}

func TestSeatsCarrySummaryDataAndTheLimitCountsOwnedSeats(t *testing.T) {
	now := time.Now().UTC()
	p := showProps(now) // user 7 holds B1 in the fixture
	p.Selected = map[int64]bool{seatID(3, 1): true, seatID(2, 4): true}
	doc := renderDoc(t, views.ShowPage(p))
	in := seatInput(doc, seatID(3, 1))
	want := map[string]string{"data-label": "C1", "data-zone": "Premium", "data-price": "¥65.00", "data-price-minor": "6500",
		"data-kind": "standard", "data-row": "3", "data-col": "1"}
	for k, v := range want {
		if got := in.AttrOr(k, ""); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	sum := doc.Find("#selection-summary")
	for k, v := range map[string]string{"data-limit": "4", "data-owned": "1", "data-money-prefix": "¥", "data-money-decimals": "2"} {
		if got := sum.AttrOr(k, ""); got != v {
			t.Errorf("summary %s = %q, want %q", k, got, v)
		}
	}
	if got := sum.Find("[data-summary-total]").Text(); got != "¥110.00" {
		t.Errorf("server-rendered total = %q", got)
	}
	if got := sum.Find("[data-summary-rows] tr").Length(); got != 2 {
		t.Errorf("%d summary rows, want 2", got)
	}
	if got := sum.Find("[data-summary-limit]").Text(); !strings.Contains(got, "you already have 1 (held or paid), so 3 left") {
		t.Errorf("limit text = %q", got)
	}
	if sum.Find(`[aria-live="polite"]`).Length() != 1 {
		t.Error("no live region for selection changes")
	}
}

func TestBestAvailableFormCreatesAnOrderOfChosenSeats(t *testing.T) {
	now := time.Now().UTC()
	orders := &fakeOrders{calls: &serviceCalls{}}
	app := testApp(fixtureMap(now), orders)
	tok := issuedCSRF(t, app)
	_, body := do(t, app, "GET", "/shows/42", nil, "tok-7")
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(body))
	f := doc.Find(`form[method="post"][action="/shows/42/best"]`)
	if f.Find(`select[name="zone"] option[value="premium"]`).Length() != 1 || f.Find(`select[name="quantity"] option`).Length() != 3 {
		t.Errorf("best-available form: zones %d, quantities %d (limit 4, 1 held: want 3)",
			f.Find(`select[name="zone"] option`).Length(), f.Find(`select[name="quantity"] option`).Length())
	}
	res, _ := do(t, app, "POST", "/shows/42/best", withCSRF(url.Values{"zone": {"premium"}, "quantity": {"2"}, "accessible": {"1"}}, tok), "tok-7")
	if res.StatusCode != fiber.StatusSeeOther || res.Header.Get("Location") != "/orders/0MI8K2J3LQ2ZKX7?chosen=1" {
		t.Errorf("best available: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	if g := orders.got; g.Zone != "premium" || g.Quantity != 2 || !g.Accessible || len(g.SeatIDs) != 0 || g.UserID != 7 {
		t.Errorf("request = %+v", g)
	}
	orders.createErr = &services.Error{Code: services.CodeNoAdjacentSeats, Message: "no 2 seats side by side are left in zone premium"}
	res, _ = do(t, app, "POST", "/shows/42/best", withCSRF(url.Values{"zone": {"premium"}, "quantity": {"2"}}, tok), "tok-7")
	if _, body = followFlash(t, app, res, "tok-7"); !strings.Contains(body, "No 2 seats side by side are left in zone premium.") {
		t.Error("refusal not told on the show page")
	}
	res, _ = do(t, app, "POST", "/shows/42/best", withCSRF(url.Values{"zone": {"premium"}, "quantity": {"lots"}}, tok), "tok-7")
	if _, body = followFlash(t, app, res, "tok-7"); !strings.Contains(body, "Choose how many seats") {
		t.Error("a bad quantity is not told")
	}

	order := &services.Order{OrderNo: "0MI8K2J3LQ2ZKX7", UserID: 7, ShowID: 42, Status: services.OrderPending, Currency: "CNY",
		CreatedAt: now, ExpiresAt: now.Add(10 * time.Minute)}
	doc = renderDoc(t, views.OrderPage(views.OrderPageProps{Page: views.Page{User: buyer}, Order: order, Now: now, Zone: shanghai, Chosen: true}))
	if !strings.Contains(doc.Find("#chosen-note").Text(), "We chose these seats for you") {
		t.Error("the order page does not say the seats were chosen for the buyer")
	}
}

func TestSignInFromAShowComesBackWithThePicks(t *testing.T) {
	app := testApp(fixtureMap(time.Now().UTC()), &fakeOrders{})
	tok := issuedCSRF(t, app)
	a, b := strconv.FormatInt(seatID(2, 4), 10), strconv.FormatInt(seatID(3, 1), 10)
	_, body := do(t, app, "GET", "/shows/42", nil, "")
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(body))
	if doc.Find(`form[action="/shows/42/book"] button[type="submit"]`).Text() != "Sign in to book" {
		t.Error("signed out, the seat form has no sign-in submit button")
	}
	if got := doc.Find(`.site-user a[href^="/register"]`).AttrOr("href", ""); got != "/register?next=/shows/42" {
		t.Errorf("register link = %q", got)
	}
	res, _ := do(t, app, "POST", "/shows/42/book", withCSRF(url.Values{"seat": {a, b}}, tok), "")
	loc := res.Header.Get("Location")
	if res.StatusCode != fiber.StatusSeeOther || loc != "/login?next=/shows/42%3Fseat%3D"+a+"%26seat%3D"+b {
		t.Fatalf("signed-out booking: %d %q", res.StatusCode, loc)
	}
	_, body = do(t, app, "GET", loc, nil, "")
	doc, _ = goquery.NewDocumentFromReader(strings.NewReader(body))
	next := doc.Find(`form[action="/login"] input[name="next"]`).AttrOr("value", "")
	if next != "/shows/42?seat="+a+"&seat="+b {
		t.Errorf("login form next = %q", next)
	}
	if got := doc.Find(`a[href^="/register"]`).Last().AttrOr("href", ""); !strings.Contains(got, "next=/shows/42%3Fseat%3D"+a) {
		t.Errorf("create-an-account link loses next: %q", got)
	}
	tok = issuedCSRF(t, app)
	res, _ = do(t, app, "POST", "/login", withCSRF(url.Values{"email": {"mei@seatflow.test"}, "password": {"right-password"}, "next": {next}}, tok), "")
	if res.StatusCode != fiber.StatusSeeOther || res.Header.Get("Location") != next {
		t.Fatalf("after sign-in: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	_, body = do(t, app, "GET", next, nil, "tok-7")
	doc, _ = goquery.NewDocumentFromReader(strings.NewReader(body))
	for _, id := range []int64{seatID(2, 4), seatID(3, 1)} {
		if _, ok := seatInput(doc, id).Attr("checked"); !ok {
			t.Errorf("seat %d not ticked after signing in", id)
		}
	}
	// a seat no longer free is not ticked
	_, body = do(t, app, "GET", "/shows/42?seat="+strconv.FormatInt(seatID(2, 2), 10), nil, "tok-7")
	doc, _ = goquery.NewDocumentFromReader(strings.NewReader(body))
	if _, ok := seatInput(doc, seatID(2, 2)).Attr("checked"); ok {
		t.Error("a held seat was ticked from the query")
	}
}

func TestShowStateMessages(t *testing.T) {
	now := time.Date(2025, 11, 30, 11, 30, 0, 0, time.UTC) // 19:30 in Shanghai
	allOf := func(m *views.ShowSeatMap, state string) {
		for id, st := range m.States {
			if st != services.StateBlocked {
				m.States[id] = state
			}
		}
		m.Show.SeatsLeft = 0
	}
	cases := []struct {
		name  string
		setup func(m *views.ShowSeatMap)
		badge string
		want  string
	}{
		{"all held", func(m *views.ShowSeatMap) { allOf(m, services.StateHeld); m.States[seatID(1, 5)] = services.StateSold },
			"all seats held", "seats may come back in up to 15 minutes."},
		{"sold out", func(m *views.ShowSeatMap) { allOf(m, services.StateSold) }, "sold out", "This show is sold out: every seat is paid for."},
		{"started", func(m *views.ShowSeatMap) { m.Show.StartsAt = now.Add(-time.Minute) }, "started", "This show started at Sun 30 Nov, 19:29; it can no longer be booked."},
		{"sale not open", func(m *views.ShowSeatMap) { m.Show.SaleOpensAt = now.Add(90 * time.Minute) }, "sale opens Sun 30 Nov, 21:00", "Sale opens Sun 30 Nov, 21:00."},
		{"scheduled after its opening", func(m *views.ShowSeatMap) {
			m.Show.Status, m.Show.SaleOpensAt = services.ShowScheduled, now.Add(-time.Hour)
		}, "not on sale yet", "Not on sale yet (sale opens Sun 30 Nov, 18:30)."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := showProps(now)
			tc.setup(p.Map)
			doc := renderDoc(t, views.ShowPage(p))
			if got := doc.Find(".show-header .badge").Text(); got != tc.badge {
				t.Errorf("badge = %q, want %q", got, tc.badge)
			}
			if got := doc.Find("#sale-state").Text(); !strings.Contains(got, tc.want) {
				t.Errorf("reason = %q, want %q", got, tc.want)
			}
			if fs := doc.Find(".seat-fieldset"); fs.Length() > 0 {
				if _, ok := fs.Attr("disabled"); !ok {
					t.Error("the seat map is not disabled")
				}
			}
			if doc.Find(`form[action$="/best"]`).Length() != 0 {
				t.Error("best available offered for a show not on sale")
			}
		})
	}
}

func TestWheelchairSpaceNeedsConfirmation(t *testing.T) {
	now := time.Now().UTC()
	orders := &fakeOrders{calls: &serviceCalls{}}
	app := testApp(fixtureMap(now), orders)
	tok := issuedCSRF(t, app)
	_, body := do(t, app, "GET", "/shows/42", nil, "tok-7")
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(body))
	box := doc.Find(`form[action="/shows/42/book"] input[type="checkbox"][name="wheelchair_ok"]`)
	if box.Length() != 1 || !strings.Contains(doc.Find(`label[for="wheelchair-ok"]`).Text(), "without a fixed seat") {
		t.Fatal("no wheelchair confirmation box explaining what a wheelchair space is")
	}
	wheel := strconv.FormatInt(seatID(1, 1), 10)
	res, _ := do(t, app, "POST", "/shows/42/book", withCSRF(url.Values{"seat": {wheel}}, tok), "tok-7")
	if slices.Contains(orders.calls.take(), "Orders.Create") {
		t.Error("an unconfirmed wheelchair space reached the order service")
	}
	if _, body = followFlash(t, app, res, "tok-7"); !strings.Contains(body, "A1 is a wheelchair space") {
		t.Error("the refusal does not say what a wheelchair space is")
	}
	res, _ = do(t, app, "POST", "/shows/42/book", withCSRF(url.Values{"seat": {wheel}, "wheelchair_ok": {"1"}}, tok), "tok-7")
	if res.StatusCode != fiber.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/orders/") {
		t.Errorf("confirmed wheelchair space: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	// a companion seat needs no confirmation
	res, _ = do(t, app, "POST", "/shows/42/book", withCSRF(url.Values{"seat": {strconv.FormatInt(seatID(1, 2), 10)}}, tok), "tok-7")
	if !strings.HasPrefix(res.Header.Get("Location"), "/orders/") {
		t.Errorf("companion seat: %q", res.Header.Get("Location"))
	}
}

func TestSeatNamesReadWellForScreenReaders(t *testing.T) {
	doc := renderDoc(t, views.ShowPage(showProps(time.Now().UTC())))
	cases := map[int64]string{
		seatID(3, 2): "Row C, seat 2, Premium, ¥65.00, available",
		seatID(1, 1): "Row A, seat 1, wheelchair space, Standard, ¥45.00, available",
		seatID(1, 5): "Row A, seat 4, Standard, ¥45.00, sold",
	}
	for id, want := range cases {
		if got := seatInput(doc, id).AttrOr("aria-label", ""); got != want {
			t.Errorf("seat %d is named %q, want %q", id, got, want)
		}
	}
	if note := doc.Find("#screen-note").Text(); !strings.Contains(note, "The screen is at the front of the hall, in front of row A") {
		t.Errorf("screen position for screen readers = %q", note)
	}
	if _, hidden := doc.Find("#screen-note").Attr("aria-hidden"); hidden {
		t.Error("the screen note is hidden from screen readers")
	}
	if doc.Find(".seatmap-scroll").AttrOr("tabindex", "") != "" {
		t.Error("the scroll box is an extra tab stop")
	}
}

func TestReloadingABookingURLIsNotA405(t *testing.T) {
	app := testApp(fixtureMap(time.Now().UTC()), &fakeOrders{})
	for _, path := range []string{"/shows/42/book", "/shows/42/best"} {
		res, _ := do(t, app, "GET", path, nil, "tok-7")
		if res.StatusCode != fiber.StatusSeeOther || res.Header.Get("Location") != "/shows/42" {
			t.Errorf("GET %s = %d %q, want 303 to the show", path, res.StatusCode, res.Header.Get("Location"))
		}
	}
}

// limitedLimiter refuses every attempt with a wait of 12 seconds.
type limitedLimiter struct{}

func (limitedLimiter) AllowRegister(context.Context, string) error {
	return &services.Error{Code: services.CodeRateLimited, Message: "rate limited", RetryAfterS: 12}
}
func (limitedLimiter) AllowLogin(context.Context, string, string) error {
	return &services.Error{Code: services.CodeRateLimited, Message: "rate limited", RetryAfterS: 12}
}

func TestSignInRateLimitSaysWhenToRetry(t *testing.T) {
	calls := &serviceCalls{}
	d := &Deps{SharedDeps: SharedDeps{Shows: &fakeShows{m: fixtureMap(time.Now().UTC()), calls: calls}, Users: fakeUsers{calls}},
		BuyerDeps:   BuyerDeps{Orders: &fakeOrders{calls: calls}, Payments: fakePayments{calls}, Limiter: limitedLimiter{}},
		ConsoleDeps: ConsoleDeps{Currency: "CNY"}}
	app := fiber.New(fiber.Config{ErrorHandler: ErrorHandler})
	app.Use(d.Authenticate)
	app.Use(d.CSRF(nil))
	d.Routes(app)
	tok := issuedCSRF(t, app)
	for _, path := range []string{"/login", "/register"} {
		res, body := do(t, app, "POST", path, withCSRF(url.Values{"email": {"mei@seatflow.test"}, "password": {"right-password"}, "name": {"Mei"}}, tok), "")
		if res.StatusCode != fiber.StatusTooManyRequests || !strings.Contains(body, "Too many attempts — retry in 12 s.") || res.Header.Get("Retry-After") != "12" {
			t.Errorf("%s rate limited: %d %q", path, res.StatusCode, res.Header.Get("Retry-After"))
		}
	}
}

// TestShowPage_CancelledShowOffersNoBooking: a cancelled show's page says so and has no
// seat form or booking rules at all, not just a disabled one.
func TestShowPage_CancelledShowOffersNoBooking(t *testing.T) {
	now := time.Now().UTC()
	p := showProps(now)
	p.Map.Show.Status = services.ShowCancelled
	doc := renderDoc(t, views.ShowPage(p))
	if doc.Find(".seat-form").Length() != 0 || doc.Find(`form[action$="/best"]`).Length() != 0 {
		t.Error("a cancelled show still has a booking form")
	}
	if strings.Contains(doc.Find(".rules").Text(), "to pay") {
		t.Errorf("booking rules shown: %q", doc.Find(".rules").Text())
	}
	if !strings.Contains(doc.Find("#sale-state").Text(), "cancelled") {
		t.Errorf("no cancellation notice: %q", doc.Find("#sale-state").Text())
	}
}

// TestMoviePage_Showtimes: a movie's page names it and lists its showtimes with the way
// to choose seats; the programme links to it; a movie with no show in the coming days
// (or no such movie) is 404.
func TestMoviePage_Showtimes(t *testing.T) {
	m := fixtureMap(time.Now().UTC())
	m.Show.Movie.ID = 5
	app := testApp(m, &fakeOrders{})
	movie := m.Show.Movie.ID
	res, body := do(t, app, "GET", "/", nil, "")
	if res.StatusCode != 200 || !strings.Contains(body, `href="/movies/`+strconv.FormatInt(movie, 10)+`"`) {
		t.Fatalf("the programme does not link the movie's page: %d", res.StatusCode)
	}
	res, body = do(t, app, "GET", "/movies/"+strconv.FormatInt(movie, 10), nil, "")
	if res.StatusCode != 200 || !strings.Contains(body, m.Show.Movie.Title) || !strings.Contains(body, "Showtimes") ||
		!strings.Contains(body, `href="/shows/`+strconv.FormatInt(m.Show.ID, 10)+`"`) {
		t.Fatalf("movie page: %d", res.StatusCode)
	}
	for _, path := range []string{"/movies/999999", "/movies/x"} {
		if res, _ := do(t, app, "GET", path, nil, ""); res.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", path, res.StatusCode)
		}
	}
}
