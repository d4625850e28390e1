package web

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/chromedp"

	"seatflow/views"
)

// flowStep runs the actions of one step of a browser walk and fails the test with the
// step's name when one of them fails.
func flowStep(t *testing.T, ctx context.Context, name string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		screenshot(t, ctx, "console-flow-failed")
		t.Fatalf("%s: %v", name, err)
	}
}

// flowEval evaluates the JavaScript expression js in the page and returns its value.
func flowEval[T any](t *testing.T, ctx context.Context, name, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		screenshot(t, ctx, "console-flow-failed")
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

// flowText is the page's address and the text of the first element matching sel.
func flowText(t *testing.T, ctx context.Context, sel string) (string, string) {
	t.Helper()
	return browserAt(t, ctx, sel)
}

// TestConsole_ManagerDay walks a day of a cinema manager new to seatflow, with a
// customer beside them in a second browser context (own cookies): staff lay out a new
// hall in the text layout editor, add a movie, schedule a show of it in the new hall
// for tomorrow with a price per zone, a purchase limit and a sale window opening later,
// open the sale at once; the customer registers, books two seats and pays with the demo
// provider; staff see the paid order on the dashboard and the sold seats on the show's
// page, then cancel the show; the customer's order then reads refunded and the show no
// longer takes bookings.
func TestConsole_ManagerDay(t *testing.T) {
	a := newTestApp(t, nil)
	acc := a.accounts["staff"]
	ctx := newBrowser(t)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	tomorrow := a.localDate(1)
	const hallName, movieTitle = "Studio Nine", "The Night Projectionist"

	// 1. sign in on the way to the new-hall form, type a layout, see the preview, save
	flowStep(t, ctx, "sign in and open the new-hall form",
		chromedp.Navigate(a.base+"/admin/halls/new"),
		chromedp.WaitVisible(css(`#email`)),
		chromedp.SendKeys(css(`#email`), acc.Email),
		chromedp.SendKeys(css(`#password`), acc.Password),
		chromedp.Submit(css(`#password`)),
		chromedp.WaitVisible(css(`#layout`)),
	)
	screenshot(t, ctx, "console-flow-00-hall-new")
	flowEval[bool](t, ctx, "clear the sample layout", `(document.querySelector('#layout').value = '', true)`)
	flowStep(t, ctx, "type a layout",
		chromedp.SendKeys(css(`#name`), hallName),
		chromedp.SendKeys(css(`#layout`), "SSSS.SSSS\nSSSS.SSSS\nPPPP.PPPP"),
	)
	// the preview follows the typing: wait until it shows the typed hall
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`(() => { const p = document.querySelector('#layout-preview .hall-preview');
			return !!p && document.querySelector('#layout-preview').innerText.includes('24 seats'); })()`, chromedp.WithPollingInterval(100*time.Millisecond))); err != nil {
		_, preview := flowText(t, ctx, `#layout-preview`)
		t.Fatalf("the preview does not show the typed layout (%v):\n%s", err, preview)
	}
	if _, preview := flowText(t, ctx, `#layout-preview`); !strings.Contains(preview, "24 seats") || !strings.Contains(preview, "Premium 8") {
		t.Errorf("live preview of the typed layout:\n%s", preview)
	}
	screenshot(t, ctx, "console-flow-01-hall-preview")
	flowStep(t, ctx, "save the hall",
		chromedp.Click(css(`button[value="save"]`)),
		chromedp.WaitVisible(css(`.success`)),
	)
	if loc, main := flowText(t, ctx, `main`); !strings.Contains(loc, "/admin/halls?saved=") || !strings.Contains(main, "Saved hall "+hallName) || !strings.Contains(main, "3 × 9") {
		t.Errorf("hall list after saving, %s:\n%s", loc, main)
	}
	screenshot(t, ctx, "console-flow-02-hall-list")

	// 2. add the movie and schedule a show of it in the new hall for tomorrow
	flowStep(t, ctx, "add a movie",
		chromedp.Navigate(a.base+"/admin/movies"),
		chromedp.WaitVisible(css(`form[action="/admin/movies"]`)),
		chromedp.SendKeys(css(`#title`), movieTitle),
		chromedp.SendKeys(css(`#runtime_min`), "100"),
		chromedp.Submit(css(`#title`)),
		chromedp.WaitVisible(css(`form[action$="/retire"]`)),
	)
	loc, main := flowText(t, ctx, `main`)
	m := regexp.MustCompile(`/admin/movies/([0-9]+)$`).FindStringSubmatch(loc)
	if m == nil || !strings.Contains(main, movieTitle) {
		t.Fatalf("movie page %s:\n%s", loc, main)
	}
	movie := m[1]
	screenshot(t, ctx, "console-flow-03-movie")

	flowStep(t, ctx, "choose the movie on the new-show form",
		chromedp.Navigate(a.base+"/admin/shows/new"),
		chromedp.WaitVisible(css(`#show-form`)),
		chromedp.SetValue(css(`#movie_id`), movie),
	)
	// the hall is picked by its name, as the manager sees it in the list
	if !flowEval[bool](t, ctx, "choose the hall", `(() => { const s = document.querySelector('#hall_id');
			const o = [...s.options].find(o => o.textContent.startsWith('`+hallName+` ('));
			if (!o) return false; s.value = o.value; s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`) {
		t.Fatalf("the new hall %q is not offered on the new-show form", hallName)
	}
	flowStep(t, ctx, "wait for the hall's zone prices", chromedp.WaitVisible(css(`#zone-prices input[id^="price_"]`)))
	priceIDs := flowEval[[]string](t, ctx, "list the price fields", `[...document.querySelectorAll('#zone-prices input[id^="price_"]')].map(e => e.id)`)
	if len(priceIDs) != 2 {
		t.Fatalf("price fields for a hall with standard and premium seats: %v", priceIDs)
	}
	fill := []chromedp.Action[chromedp.Void]{
		chromedp.SetValue(css(`#date`), tomorrow),
		chromedp.SetValue(css(`#start`), "20:00"),
		chromedp.SetValue(css(`#opens_date`), tomorrow),
		chromedp.SetValue(css(`#opens_time`), "06:00"),
		chromedp.SendKeys(css(`#purchase_limit`), "3"),
	}
	for i, id := range priceIDs {
		fill = append(fill, chromedp.SendKeys(css(`#`+id), []string{"9.50", "14"}[i]))
	}
	flowStep(t, ctx, "fill the new-show form", fill...)
	screenshot(t, ctx, "console-flow-04-show-new")
	flowStep(t, ctx, "schedule the show",
		chromedp.Click(css(`#show-form button.button-primary`)),
		chromedp.WaitVisible(css(`#show-status`)),
	)
	loc, main = flowText(t, ctx, `main`)
	if !regexp.MustCompile(`/admin/shows/[0-9]+$`).MatchString(loc) {
		t.Fatalf("after scheduling the browser is at %s:\n%s", loc, main)
	}
	showPath := strings.TrimPrefix(loc, a.base)
	showID := showPath[strings.LastIndex(showPath, "/")+1:]
	for _, want := range []string{"scheduled", hallName, "20:00 – ", "1 h 40 min", "3 seats per buyer", "0 sold · 0 held · 24 free"} {
		if !strings.Contains(main, want) {
			t.Errorf("the scheduled show's page lacks %q:\n%s", want, main)
		}
	}
	screenshot(t, ctx, "console-flow-05-show-scheduled")
	flowStep(t, ctx, "open sale now",
		chromedp.Click(css(`form[action$="/open-sale"] button`)),
		chromedp.WaitVisible(css(`form[action$="/open-sale"] button[disabled]`)),
	)
	if _, status := flowText(t, ctx, `#show-status`); status != "on sale" {
		t.Errorf("after Open sale now the status reads %q", status)
	}
	screenshot(t, ctx, "console-flow-06-show-on-sale")

	// 3. a customer in their own browser context registers, books two seats and pays
	cctx, cancelC := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
	defer cancelC()
	var cspMu sync.Mutex
	var csp []string
	if err := chromedp.Listen(cctx, func(ev any) {
		if e, ok := ev.(*cdplog.EventEntryAdded); ok && strings.Contains(e.Entry.Text, "Content Security Policy") {
			cspMu.Lock()
			csp = append(csp, e.Entry.URL+": "+e.Entry.Text)
			cspMu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(cctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("open the customer's browser context: %v", err)
	}
	defer func() {
		cspMu.Lock()
		defer cspMu.Unlock()
		for _, v := range csp {
			t.Errorf("content security policy violated on the customer's pages: %s", v)
		}
	}()
	flowStep(t, cctx, "customer registers and opens the show",
		chromedp.Navigate(a.base+"/register"),
		chromedp.WaitVisible(css(`#name`)),
		chromedp.SendKeys(css(`#name`), "Grace Customer"),
		chromedp.SendKeys(css(`#email`), "grace.customer@example.test"),
		chromedp.SendKeys(css(`#password`), "front-row-please"),
		chromedp.Submit(css(`#password`)),
		chromedp.WaitVisible(css(`form[action="/logout"]`)),
		chromedp.Navigate(a.base+"/shows/"+showID),
		chromedp.WaitVisible(css(`input[name="seat"]`)),
	)
	screenshot(t, cctx, "console-flow-07-customer-show")
	picked := flowEval[[]string](t, cctx, "tick two seats", `(() => { const f = [...document.querySelectorAll('input[name="seat"]:not([disabled])')].slice(0, 2);
			f.forEach(x => x.click()); return f.map(x => x.value); })()`)
	if len(picked) != 2 {
		t.Fatalf("seats ticked: %v", picked)
	}
	flowStep(t, cctx, "book the seats",
		chromedp.Submit(css(`input[name="seat"]`)),
		chromedp.WaitVisible(css(`form[action$="/pay"]`)),
	)
	orderURL, _ := flowText(t, cctx, `main`)
	screenshot(t, cctx, "console-flow-08-customer-order-pending")
	flowStep(t, cctx, "pay with the demo provider",
		chromedp.Submit(css(`form[action$="/pay"] button`)),
		chromedp.WaitVisible(css(`form[action$="/approve"]`)),
	)
	screenshot(t, cctx, "console-flow-09-demo-provider")
	flowStep(t, cctx, "approve the payment",
		chromedp.Submit(css(`form[action$="/approve"] button`)),
		chromedp.WaitNotPresent(css(`form[action$="/approve"]`)),
		chromedp.WaitVisible(css(`main`)),
	)
	if _, body := flowText(t, cctx, `main`); !strings.Contains(body, "paid") {
		t.Errorf("the order page after approval does not say paid:\n%s", body)
	}
	screenshot(t, cctx, "console-flow-10-customer-paid")

	// 4. the dashboard has the payment (tomorrow's show is not among today's shows);
	// the show's page counts the sold seats
	flowStep(t, ctx, "open the dashboard",
		chromedp.Navigate(a.base+"/admin"),
		chromedp.WaitVisible(css(`#revenue-today-title`)),
	)
	_, today := flowText(t, ctx, `section[aria-labelledby="revenue-today-title"]`)
	// the demo cinema has paid orders of its own: the new movie and hall have a line each
	paid := regexp.QuoteMeta(views.Money(2*950, a.Cfg.Currency))
	for _, line := range []string{movieTitle, hallName} {
		if !regexp.MustCompile(regexp.QuoteMeta(line) + `\s+1\s+2\s+` + paid).MatchString(today) {
			t.Errorf("today's revenue lacks the line %q with 1 order, 2 seats, %s:\n%s", line, paid, today)
		}
	}
	if _, stats := flowText(t, ctx, `dl.dash-stats`); !regexp.MustCompile(`Orders in the last hour\s*[1-9]`).MatchString(stats) {
		t.Errorf("the order is not counted in the last hour:\n%s", stats)
	}
	screenshot(t, ctx, "console-flow-11-dashboard")
	flowStep(t, ctx, "open the show's page",
		chromedp.Navigate(a.base+showPath),
		chromedp.WaitVisible(css(`#show-status`)),
	)
	if _, main := flowText(t, ctx, `main`); !strings.Contains(main, "2 sold · 0 held · 22 free") {
		t.Errorf("the show's page does not count the sold seats:\n%s", main)
	}
	screenshot(t, ctx, "console-flow-12-show-sold")

	// 5. cancel the show through the confirmation step
	flowStep(t, ctx, "open the cancel step",
		chromedp.Click(css(`a[href$="/cancel"]`)),
		chromedp.WaitVisible(css(`#confirm`)),
		chromedp.SendKeys(css(`#reason`), "Projector broke down"),
	)
	screenshot(t, ctx, "console-flow-13-cancel-confirm")
	flowStep(t, ctx, "confirm the cancel",
		chromedp.Click(css(`#confirm`)),
		chromedp.Click(css(`form[action$="/cancel"] button`)),
		chromedp.WaitVisible(css(`#cancel-summary`)),
	)
	_, summary := flowText(t, ctx, `#cancel-summary`)
	_, status := flowText(t, ctx, `#show-status`)
	if summary != "Show cancelled: 0 pending orders cancelled, 1 paid order refunded." || status != "cancelled" {
		t.Errorf("after cancelling: %q, status %q", summary, status)
	}
	screenshot(t, ctx, "console-flow-14-cancelled")

	// 6. the customer's order is refunded and the show takes no more bookings
	flowStep(t, cctx, "reload the order",
		chromedp.Navigate(orderURL),
		chromedp.WaitVisible(css(`main`)),
	)
	if _, body := flowText(t, cctx, `main`); !strings.Contains(body, "The show was cancelled, so this order was refunded") {
		t.Errorf("the customer's order after the show was cancelled:\n%s", body)
	}
	screenshot(t, cctx, "console-flow-15-customer-refunded")
	flowStep(t, cctx, "open the cancelled show",
		chromedp.Navigate(a.base+"/shows/"+showID),
		chromedp.WaitVisible(css(`#sale-state`)),
	)
	bookable := flowEval[int](t, cctx, "count the ways to book",
		`document.querySelectorAll('fieldset.seat-fieldset:not([disabled]) input[name="seat"], form.seat-form button[type="submit"]:not([disabled])').length`)
	if bookable != 0 {
		t.Errorf("the cancelled show still offers %d seats or buttons to book", bookable)
	}
	if _, state := flowText(t, cctx, `#sale-state`); state == "" {
		t.Error("the cancelled show says nothing about why it cannot be booked")
	}
	screenshot(t, cctx, "console-flow-16-customer-show-cancelled")
	for _, id := range picked {
		if st := a.seatState(showID, id); st == "sold" || st == "held" {
			t.Errorf("seat %s is still %s after the show was cancelled", id, st)
		}
	}
}
