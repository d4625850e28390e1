package web

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"seatflow/views"
)

// TestBrowserTickets_TypesWithVoucher: on a show selling child tickets beside adult, a
// buyer ticks two seats, types one child and applies a 20 % voucher: the check names the
// saving on both typed prices (each rounded down) and the total after it, in English and
// Chinese at 1280 and 375 px, and axe finds nothing serious. Each state is a screenshot
// (types-voucher-<lang>-<width>.png under SEATFLOW_SCREENSHOTS: the booking form from the
// seat picker down). The selection summary and the phones' bar show the total with the
// code and its saving, and follow when a seat is unticked and ticked again (the code is
// checked again on its own). Booking keeps the code:
// the order page lists the child seat, the voucher and the total the check said.
func TestBrowserTickets_TypesWithVoucher(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	if r := a.do("POST", "/api/v1/admin/ticket-types", staff, map[string]any{"code": "child", "name": "Child", "name_zh": "儿童",
		"note": "ID required at the door", "note_zh": "入场时请出示证件"}, nil); r.status != 201 {
		t.Fatalf("create child: %d %s", r.status, r.body)
	}
	show := a.showInHall("Hall 1")
	detail := a.do("GET", "/api/v1/shows/"+show, "", nil, nil).json(t)
	zone := detail["zones"].([]any)[0].(map[string]any)
	code, adult, currency := zone["code"].(string), int64(zone["price_minor"].(float64)), zone["currency"].(string)
	const child = 2500
	if r := a.do("PATCH", "/api/v1/admin/shows/"+show, staff, map[string]any{"ticket_prices": []map[string]any{{"type": "child", "zone": code, "price_minor": child}}}, nil); r.status != 200 {
		t.Fatalf("price child: %d %s", r.status, r.body)
	}
	if r := a.do("POST", "/api/v1/admin/vouchers", staff, map[string]any{"code": "FAMILY-20", "max_uses": 100, "percent_off": 20}, nil); r.status != 201 {
		t.Fatalf("voucher: %d %s", r.status, r.body)
	}
	after := adult*80/100 + child*80/100
	saving, total := views.Money(adult+child-after, currency), views.Money(after, currency)
	row, ids := a.freeRow(show)
	s1, s2 := ids[row+"3"], ids[row+"4"]
	ctx := newBrowser(t)
	uxRegister(t, ctx, a)
	for _, lang := range []string{"en", "zh-Hans"} {
		for _, w := range axeWidths {
			name := "types-voucher-" + lang + "-" + strconv.FormatInt(w.width, 10)
			opts := []chromedp.EmulateViewportOption{}
			if w.mobile {
				opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
			}
			if err := chromedp.Do(ctx,
				chromedp.EmulateViewport(w.width, w.height, opts...),
				chromedp.Navigate(a.base+"/shows/"+show+"?lang="+lang),
				chromedp.WaitVisible(chromedp.CSS(`#seat-tickets-child`)),
			); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			// the seat map takes room on the page (a row of seats at least)
			if h := evalJS[float64](t, ctx, `document.querySelector('.seatmap-scroll').getBoundingClientRect().height`); h < 100 {
				t.Errorf("%s: the seat map is %.0f px high", name, h)
			}
			tick(t, ctx, s1, s2)
			evalJS[bool](t, ctx, `(() => { const i = document.querySelector('#seat-tickets-child'); i.focus(); i.select(); return true; })()`)
			if err := chromedp.Do(ctx, chromedp.KeyEvent("1"),
				chromedp.Focus(chromedp.CSS(`#seat-voucher`)),
				chromedp.SendKeys(chromedp.CSS(`#seat-voucher`), "family-20"),
				chromedp.Click(chromedp.CSS(`.seat-form .voucher-row button`)),
				chromedp.WaitVisible(chromedp.CSS(`#seat-voucher-result .voucher-ok`)),
			); err != nil {
				t.Fatalf("%s: the voucher: %v", name, err)
			}
			got := evalJS[string](t, ctx, `document.querySelector('#seat-voucher-result').innerText`)
			if !strings.Contains(got, "FAMILY-20") || !strings.Contains(got, saving) || !strings.Contains(got, total) {
				t.Errorf("%s: the check says %q, want the saving %s and the total %s", name, got, saving, total)
			}
			summaryTotal, barText, voucherRow := voucherTotals(t, ctx)
			if summaryTotal != total || !strings.Contains(barText, total) || !strings.Contains(voucherRow, "FAMILY-20") || !strings.Contains(voucherRow, saving) {
				t.Errorf("%s: summary total %q, bar %q, voucher row %q; want %s and FAMILY-20 −%s", name, summaryTotal, barText, voucherRow, total, saving)
			}
			evalJS[bool](t, ctx, `(document.querySelector('.voucher-field').scrollIntoView({block: 'center'}), true)`)
			checkAxe(t, ctx, name)
			formShot(t, ctx, w, opts, name)
		}
	}
	// a seat unticked: the code is checked again on what is left (one child seat), and
	// ticked again, on both; the summary and the bar follow without a click on Apply
	one := views.Money(child*80/100, currency)
	for _, step := range []struct {
		ids  []string
		want string
	}{{[]string{s1}, one}, {[]string{s1, s2}, total}} {
		tick(t, ctx, step.ids...)
		if err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](`document.querySelector('[data-summary-total]').textContent === `+strconv.Quote(step.want)+
			` && !document.querySelector('[data-summary-voucher]').hidden`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
			summaryTotal, barText, voucherRow := voucherTotals(t, ctx)
			t.Fatalf("%d seats ticked: summary total %q, bar %q, voucher row %q; want %s with the voucher: %v", len(step.ids), summaryTotal, barText, voucherRow, step.want, err)
		}
		if _, barText, _ := voucherTotals(t, ctx); !strings.Contains(barText, step.want) {
			t.Errorf("%d seats ticked: the bar says %q, want %s", len(step.ids), barText, step.want)
		}
	}
	// another code typed over the checked one: its words and its total go until Apply
	typed := func(code string) {
		evalJS[bool](t, ctx, `(() => { const i = document.querySelector('#seat-voucher'); i.value = `+strconv.Quote(code)+`;
			i.dispatchEvent(new Event('input', {bubbles: true})); return true; })()`)
	}
	typed("family-2")
	if res, _, row := voucherTotals(t, ctx); evalJS[string](t, ctx, `document.querySelector('#seat-voucher-result').textContent`) != "" || row != "" || res == total {
		t.Errorf("another code typed: the old check still shows (total %q, voucher row %q)", res, row)
	}
	typed("family-20")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.seat-form .voucher-row button`)),
		chromedp.Poll[chromedp.Void](`document.querySelector('[data-summary-total]').textContent === `+strconv.Quote(total), chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("the code applied again: %v", err)
	}
	if err := chromedp.Do(ctx,
		chromedp.EmulateViewport(1280, 900),
		chromedp.Click(chromedp.CSS(`.seat-form .form-actions button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`table.order-seats`)),
	); err != nil {
		t.Fatalf("booking: %v", err)
	}
	types := evalJS[string](t, ctx, `Array.from(document.querySelectorAll('table.order-seats [data-ticket-type]')).map(x => x.getAttribute('data-ticket-type')).sort().join(',')`)
	got := evalJS[string](t, ctx, `document.querySelector('table.order-seats .total').textContent`)
	voucher := evalJS[string](t, ctx, `(document.querySelector('table.order-seats .order-voucher') || {innerText: ''}).innerText`)
	if types != "adult,child" || got != total || !strings.Contains(voucher, "FAMILY-20") || !strings.Contains(voucher, saving) {
		t.Errorf("the order page: types %q, total %q, voucher row %q; want adult,child, %s and FAMILY-20 −%s", types, got, voucher, total, saving)
	}
	screenshot(t, ctx, "types-voucher-order-zh-Hans-1280")
	if os.Getenv("SEATFLOW_SCREENSHOTS") != "" {
		t.Logf("screenshots in %s", os.Getenv("SEATFLOW_SCREENSHOTS"))
	}
}

// voucherTotals reads the selection summary's total, the phones' bottom bar and the
// summary's voucher row ("" when hidden).
func voucherTotals(t *testing.T, ctx context.Context) (total, bar, voucher string) {
	t.Helper()
	v := evalJS[[]string](t, ctx, `(() => { const r = document.querySelector('[data-summary-voucher]');
		return [document.querySelector('[data-summary-total]').textContent, document.querySelector('[data-bar-summary]').textContent,
			r && !r.hidden ? r.textContent : '']; })()`)
	return v[0], v[1], v[2]
}

// formShot saves, under SEATFLOW_SCREENSHOTS, the booking form from the top of the
// seat picker in a window of w's width as tall as the form (at most 2400 px), then sets
// the window back to w. A capture beyond the window (FullScreenshot) leaves the seat
// map's scroll box blank at 1280 px in headless Chromium, so this one stays inside it.
func formShot(t *testing.T, ctx context.Context, w axeWidth, opts []chromedp.EmulateViewportOption, name string) {
	t.Helper()
	dir := os.Getenv("SEATFLOW_SCREENSHOTS")
	if dir == "" {
		return
	}
	tall := evalJS[float64](t, ctx, `(() => { const f = document.querySelector('.seat-form'); const r = f.getBoundingClientRect();
		return Math.ceil(r.height + 24); })()`)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(w.width, min(int64(tall), 2400), opts...)); err != nil {
		t.Fatal(err)
	}
	evalJS[bool](t, ctx, `(window.scrollTo(0, document.querySelector('.seat-form').getBoundingClientRect().top + window.scrollY - 12), true)`)
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Logf("screenshot %s: %v", name, err)
	} else if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Logf("screenshot %s: %v", name, err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(w.width, w.height, opts...)); err != nil {
		t.Fatal(err)
	}
}
