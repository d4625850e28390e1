package web

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// uxRegister creates an account in the browser and stays signed in.
func uxRegister(t *testing.T, ctx context.Context, a *testApp) {
	t.Helper()
	email := fmt.Sprintf("ux%d-%d@example.test", time.Now().UnixNano(), userSeq.Add(1))
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/register"),
		chromedp.SendKeys(chromedp.CSS(`#name`), "Kit Keyboard"),
		chromedp.SendKeys(chromedp.CSS(`#email`), email),
		chromedp.SendKeys(chromedp.CSS(`#password`), "popcorn-and-seats"),
		chromedp.Submit(chromedp.CSS(`#password`)),
		// on a phone the sign-out form sits behind the Menu button
		chromedp.WaitReady(chromedp.CSS(`form[action="/logout"]`)),
	); err != nil {
		t.Fatalf("register: %v", err)
	}
}

// showInHall returns an on-sale show of today or the next days in the named hall.
func (a *testApp) showInHall(hall string) string {
	a.t.Helper()
	now := a.clock.Now()
	for d := 0; d < 7; d++ {
		day := now.In(a.Cfg.Location()).AddDate(0, 0, d).Format(time.DateOnly)
		var v struct {
			Shows []struct {
				ID, Status  string
				Hall        struct{ Name string }
				SaleOpensAt string `json:"sale_opens_at"`
				StartsAt    string `json:"starts_at"`
			}
		}
		json.Unmarshal(a.do("GET", "/api/v1/shows?date="+day, "", nil, nil).body, &v)
		for _, s := range v.Shows {
			opens, _ := time.Parse(time.RFC3339, s.SaleOpensAt)
			starts, _ := time.Parse(time.RFC3339, s.StartsAt)
			if s.Status == "on_sale" && s.Hall.Name == hall && opens.Before(now) && starts.After(now.Add(time.Hour)) {
				return s.ID
			}
		}
	}
	a.t.Fatalf("no show on sale in %s", hall)
	return ""
}

// viewportShot saves what the screen shows (not the whole page) under
// SEATFLOW_SCREENSHOTS when that is set.
func viewportShot(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv("SEATFLOW_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	_ = os.MkdirAll(dir, 0o755)
	_ = os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
}

// liveText is the seat map's live region after its short announcement delay.
func liveText(t *testing.T, ctx context.Context) string {
	time.Sleep(150 * time.Millisecond)
	return evalJS[string](t, ctx, `document.querySelector('[data-seat-live]').textContent`)
}

func evalJS[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// TestBrowserUX_BookingFlowWithSummary picks seats and watches the summary follow
// without a reload, books, declines the payment and reads the plain outcome.
func TestBrowserUX_BookingFlowWithSummary(t *testing.T) {
	a := newTestApp(t, nil)
	show, _ := a.onSaleShow(3)
	ctx := newBrowser(t)
	uxRegister(t, ctx, a)
	if err := chromedp.Do(ctx, chromedp.Navigate(a.base+"/shows/"+show), chromedp.WaitVisible(chromedp.CSS(`#selection-summary`))); err != nil {
		t.Fatal(err)
	}
	picked := evalJS[[]string](t, ctx, `(() => {
		const f = [...document.querySelectorAll('input[name="seat"]:not([disabled])[data-kind="standard"]')].slice(0, 2);
		f.forEach(x => x.click()); return f.map(x => x.dataset.label + "|" + x.dataset.price); })()`)
	if len(picked) != 2 {
		t.Fatalf("picked %v", picked)
	}
	rows := evalJS[[]string](t, ctx, `[...document.querySelectorAll('[data-summary-rows] tr')].map(r => r.cells[0].textContent + "|" + r.cells[2].textContent)`)
	if strings.Join(rows, ",") != strings.Join(picked, ",") {
		t.Errorf("summary rows %v, picked %v", rows, picked)
	}
	total := evalJS[string](t, ctx, `document.querySelector('[data-summary-total]').textContent`)
	limit := evalJS[string](t, ctx, `document.querySelector('[data-summary-limit]').textContent`)
	if !strings.HasPrefix(total, "¥") || !strings.Contains(limit, "2 of your limit of 4 left") {
		t.Errorf("total %q, limit %q", total, limit)
	}
	live := liveText(t, ctx)
	if !strings.Contains(live, "selected") || !strings.Contains(live, total) {
		t.Errorf("live region = %q", live)
	}
	// two more reach the limit; a fifth is refused and explained
	evalJS[int](t, ctx, `(() => { const f = [...document.querySelectorAll('input[name="seat"]:not([disabled]):not(:checked)[data-kind="standard"]')].slice(0, 3); f.forEach(x => x.click()); return f.length; })()`)
	if n := evalJS[int](t, ctx, `document.querySelectorAll('input[name="seat"]:checked').length`); n != 4 {
		t.Errorf("%d seats checked past the limit of 4", n)
	}
	if note := evalJS[string](t, ctx, `document.querySelector('[data-summary-limit]').textContent`); !strings.Contains(note, "reached the limit of 4") {
		t.Errorf("limit not explained: %q", note)
	}
	screenshot(t, ctx, "ux-show-summary")
	evalJS[int](t, ctx, `(() => { const f = [...document.querySelectorAll('input[name="seat"]:checked')].slice(2); f.forEach(x => x.click()); return f.length; })()`)
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`.seat-form button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-countdown-clock]`)),
	); err != nil {
		t.Fatalf("book: %v", err)
	}
	screenshot(t, ctx, "ux-order-pending")
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`form[action$="/pay"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`form[action$="/decline"]`)),
		chromedp.Click(chromedp.CSS(`form[action$="/decline"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`.payment-note`)),
	); err != nil {
		t.Fatalf("decline: %v", err)
	}
	if note := evalJS[string](t, ctx, `document.querySelector('.payment-note').textContent`); !strings.HasPrefix(note, "Your payment was declined; nothing was charged. You can try again before ") {
		t.Errorf("declined note = %q", note)
	}
	screenshot(t, ctx, "ux-order-declined")
}

// TestBrowserUX_KeyboardOnlyBooking books with the keyboard alone: Tab to the map (one
// tab stop), arrows, Space, Tab to Book, Enter.
func TestBrowserUX_KeyboardOnlyBooking(t *testing.T) {
	a := newTestApp(t, nil)
	show, _ := a.onSaleShow(3)
	ctx := newBrowser(t)
	uxRegister(t, ctx, a)
	if err := chromedp.Do(ctx, chromedp.Navigate(a.base+"/shows/"+show), chromedp.WaitVisible(chromedp.CSS(`#selection-summary`))); err != nil {
		t.Fatal(err)
	}
	stops := evalJS[int](t, ctx, `document.querySelectorAll('input[name="seat"][tabindex="0"]').length`)
	if stops != 1 {
		t.Fatalf("the map has %d tab stops, want 1", stops)
	}
	active := func() string {
		return evalJS[string](t, ctx, `(() => { const e = document.activeElement; return e ? (e.name === "seat" ? "seat:" + e.dataset.label : e.tagName + ":" + e.textContent.trim()) : ""; })()`)
	}
	tab := func() {
		if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 40 && !strings.HasPrefix(active(), "seat:"); i++ {
		tab()
	}
	start := active()
	if !strings.HasPrefix(start, "seat:") {
		t.Fatalf("Tab never reached the map (at %q)", start)
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowDown)); err != nil {
		t.Fatal(err)
	}
	moved := active()
	if moved == start || !strings.HasPrefix(moved, "seat:") {
		t.Errorf("arrows moved focus from %q to %q", start, moved)
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent(" ")); err != nil {
		t.Fatal(err)
	}
	checked := evalJS[[]string](t, ctx, `[...document.querySelectorAll('input[name="seat"]:checked')].map(x => "seat:" + x.dataset.label)`)
	if len(checked) != 1 || checked[0] != moved {
		t.Fatalf("Space checked %v, focus on %q", checked, moved)
	}
	live := liveText(t, ctx)
	if !strings.Contains(live, strings.TrimPrefix(moved, "seat:")+" selected") {
		t.Errorf("live region = %q", live)
	}
	name := evalJS[string](t, ctx, `document.activeElement.getAttribute("aria-label")`)
	if !strings.HasPrefix(name, "Row ") || !strings.Contains(name, ", seat ") || !strings.Contains(name, "¥") {
		t.Errorf("accessible name %q", name)
	}
	screenshot(t, ctx, "ux-keyboard-map")
	for i := 0; i < 10 && !strings.HasPrefix(active(), "BUTTON:Book"); i++ {
		tab()
		if strings.HasPrefix(active(), "seat:") {
			t.Fatal("Tab went to another seat: the map is more than one tab stop")
		}
	}
	if !strings.HasPrefix(active(), "BUTTON:Book") {
		t.Fatalf("Tab never reached Book (at %q)", active())
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.CSS(`form[action$="/pay"]`))); err != nil {
		t.Fatalf("Enter on Book: %v", err)
	}
	if seats := evalJS[string](t, ctx, `document.querySelector('.order-seats tbody').textContent`); !strings.Contains(seats, strings.TrimPrefix(moved, "seat:")) {
		t.Errorf("order seats %q, want %s", seats, moved)
	}
}

// TestBrowserUX_PhoneWidth checks the biggest hall's page fits a 375-px screen: the
// map scrolls sideways inside its box and opens with the screen's label in view.
func TestBrowserUX_PhoneWidth(t *testing.T) {
	a := newTestApp(t, nil)
	show := a.showInHall("Hall 3")
	ctx := newBrowser(t)
	if err := chromedp.Do(ctx,
		chromedp.EmulateViewport(375, 812, chromedp.EmulateMobile, chromedp.EmulateTouch),
		chromedp.Navigate(a.base+"/shows/"+show),
		chromedp.WaitVisible(chromedp.CSS(`.seats`)),
	); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "ux-phone-375")
	if w := evalJS[int](t, ctx, `document.documentElement.scrollWidth`); w > 375 {
		t.Errorf("page is %d px wide on a 375-px screen", w)
	}
	if over := evalJS[bool](t, ctx, `(() => { const s = document.querySelector('.seatmap-scroll'); return s.scrollWidth > s.clientWidth + 1; })()`); !over {
		t.Error("the map of 22 seats a row at 24 px or more does not scroll sideways inside its box")
	}
	if x := evalJS[float64](t, ctx, `(() => { const r = document.querySelector('.screen span').getBoundingClientRect(); return r.left >= 0 && r.right <= 375 ? 1 : 0; })()`); x != 1 {
		t.Error("the map does not open with the screen's label in view")
	}
	screenshot(t, ctx, "ux-phone-375-map")
	if err := chromedp.Do(ctx, chromedp.Navigate(a.base+"/"), chromedp.WaitVisible(chromedp.CSS(`.date-strip`))); err != nil {
		t.Fatal(err)
	}
	if w := evalJS[int](t, ctx, `document.documentElement.scrollWidth`); w > 375 {
		t.Errorf("home page is %d px wide on a 375-px screen", w)
	}
	viewportShot(t, ctx, "ux-phone-375-home")
}

// TestBrowserUX_CountdownReachesTheDeadline books with a hold of a few seconds and
// watches the order page turn to expired by itself, with Pay gone.
func TestBrowserUX_CountdownReachesTheDeadline(t *testing.T) {
	a := newTestApp(t, func(c *Config) { c.HoldSeconds = 12 })
	show, seats := a.onSaleShow(1)
	ctx := newBrowser(t)
	uxRegister(t, ctx, a)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/shows/"+show),
		chromedp.Click(chromedp.CSS(`input[name="seat"][value="`+seats[0]+`"]`)),
	); err != nil {
		t.Fatal(err)
	}
	tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(tctx,
		chromedp.Click(chromedp.CSS(`.seat-form button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-countdown-clock]`)),
	); err != nil {
		screenshot(t, ctx, "ux-countdown-failed")
		t.Fatal(err)
	}
	secs := evalJS[int](t, ctx, `+document.querySelector('[data-countdown]').dataset.secondsLeft`)
	if secs < 1 || secs > 12 {
		t.Errorf("server seconds left = %d, want 1..12", secs)
	}
	if err := chromedp.Do(ctx, chromedp.WaitNotPresent(chromedp.CSS(`form[action$="/pay"]`))); err != nil {
		t.Fatalf("Pay did not disappear at the deadline: %v", err)
	}
	if badge := evalJS[string](t, ctx, `document.querySelector('[data-order-status]').textContent`); badge != "expired" {
		t.Errorf("badge = %q at the deadline", badge)
	}
	screenshot(t, ctx, "ux-order-expired")
}

// TestBrowserUX_WheelchairSpaceAsksForConfirmation picks a wheelchair space: the
// confirmation box appears, required, and the booking goes through once it is ticked;
// the order names the seat's kind.
func TestBrowserUX_WheelchairSpaceAsksForConfirmation(t *testing.T) {
	a := newTestApp(t, nil)
	show := a.showInHall("Hall 3")
	ctx := newBrowser(t)
	uxRegister(t, ctx, a)
	if err := chromedp.Do(ctx, chromedp.Navigate(a.base+"/shows/"+show), chromedp.WaitVisible(chromedp.CSS(`#selection-summary`))); err != nil {
		t.Fatal(err)
	}
	if shown := evalJS[bool](t, ctx, `!document.querySelector('[data-wheelchair-confirm]').hidden`); shown {
		t.Error("the wheelchair confirmation shows before a wheelchair space is picked")
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`input[name="seat"][data-kind="wheelchair"]:not([disabled])`))); err != nil {
		t.Fatal(err)
	}
	if req := evalJS[bool](t, ctx, `(() => { const b = document.querySelector('[data-wheelchair-confirm]'); return !b.hidden && b.querySelector('input').required; })()`); !req {
		t.Error("picking a wheelchair space does not ask for its confirmation")
	}
	if live := liveText(t, ctx); !strings.Contains(live, "wheelchair space") {
		t.Errorf("live region = %q", live)
	}
	if row := evalJS[string](t, ctx, `document.querySelector('[data-summary-rows] td').textContent`); !strings.HasSuffix(row, "(wheelchair space)") {
		t.Errorf("summary row %q does not say it is a wheelchair space", row)
	}
	screenshot(t, ctx, "ux-wheelchair-confirm")
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#wheelchair-ok`)),
		chromedp.Click(chromedp.CSS(`.seat-form button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`form[action$="/pay"]`)),
	); err != nil {
		t.Fatalf("book the wheelchair space: %v", err)
	}
	if seats := evalJS[string](t, ctx, `document.querySelector('.order-seats tbody').textContent`); !strings.Contains(seats, "wheelchair space") {
		t.Errorf("the order does not name the wheelchair space: %q", seats)
	}
}

// TestBrowserUX_RegisterFromAShowKeepsThePicks ticks seats signed out, goes to sign
// in, follows "Create an account", and comes back to the show with the seats ticked.
func TestBrowserUX_RegisterFromAShowKeepsThePicks(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(2)
	ctx := newBrowser(t)
	email := fmt.Sprintf("ux%d-%d@example.test", time.Now().UnixNano(), userSeq.Add(1))
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/shows/"+show),
		chromedp.Click(chromedp.CSS(`input[name="seat"][value="`+seats[0]+`"]`)),
		chromedp.Click(chromedp.CSS(`input[name="seat"][value="`+seats[1]+`"]`)),
		chromedp.Click(chromedp.CSS(`.seat-form button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/login"]`)),
		chromedp.Click(chromedp.CSS(`main a[href^="/register"]`)),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/register"]`)),
		chromedp.SendKeys(chromedp.CSS(`#name`), "Rae Return"),
		chromedp.SendKeys(chromedp.CSS(`#email`), email),
		chromedp.SendKeys(chromedp.CSS(`#password`), "popcorn-and-seats"),
		chromedp.Submit(chromedp.CSS(`#password`)),
		chromedp.WaitVisible(chromedp.CSS(`#selection-summary`)),
	); err != nil {
		t.Fatalf("sign-in round trip: %v", err)
	}
	path := evalJS[string](t, ctx, `location.pathname`)
	ticked := evalJS[[]string](t, ctx, `[...document.querySelectorAll('input[name="seat"]:checked')].map(x => x.value)`)
	if path != "/shows/"+show || strings.Join(ticked, ",") != strings.Join(seats, ",") {
		t.Errorf("back on %s with %v ticked, want /shows/%s with %v", path, ticked, show, seats)
	}
	if signedIn := evalJS[int](t, ctx, `document.querySelectorAll('form[action="/logout"]').length`); signedIn != 1 {
		t.Error("not signed in after registering")
	}
	if rows := evalJS[int](t, ctx, `document.querySelectorAll('[data-summary-rows] tr').length`); rows != 2 {
		t.Errorf("summary has %d rows after coming back", rows)
	}
	screenshot(t, ctx, "ux-back-from-register")
}
