package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserExchange_ChangeSeatsOnAPhoneByKeyboard: at 375 × 667 a buyer books two
// seats, finds "Change seats" on the order page, opens the seat picker in exchange mode
// with the keyboard (the order's seats ticked as theirs, the rule and the count told),
// unticks one seat and ticks another with Space (the summary keeps the order's prices,
// its voucher's saving included, not the seats' list prices), sends the form with Enter and is back
// on the order page on the new seats, told so; the old seat is free on the show's map.
// The picker reads in Chinese too. Both pages pass axe at the phone's width; the
// screenshots are kept under SEATFLOW_SCREENSHOTS.
func TestBrowserExchange_ChangeSeatsOnAPhoneByKeyboard(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(4)
	if r := a.do("POST", "/api/v1/admin/vouchers", a.demoToken("staff"), map[string]any{"code": "SWAP-10", "max_uses": 10, "percent_off": 10}, nil); r.status != 201 {
		t.Fatalf("voucher: %d %s", r.status, r.body)
	}
	ctx := newBrowser(t)
	if err := chromedp.Do(ctx, phone()); err != nil {
		t.Fatal(err)
	}
	uxRegister(t, ctx, a)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/shows/"+show),
		chromedp.WaitVisible(chromedp.CSS(`#selection-summary`)),
	); err != nil {
		t.Fatalf("open the show: %v", err)
	}
	evalJS[bool](t, ctx, `(() => { for (const id of [`+jsString(seats[0])+`, `+jsString(seats[1])+`]) {
		document.querySelector('input[name="seat"][value="' + id + '"]').click() }
		document.querySelector('#seat-voucher').value = 'swap-10';
		document.querySelector('.seat-form button[type="submit"]').click(); return true })()`)
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-exchange-link]`))); err != nil {
		t.Fatalf("book: %v", err)
	}
	orderTotal := evalJS[string](t, ctx, `document.querySelector('table.order-seats .total').textContent`)
	screenshot(t, ctx, "exchange-order-375")
	checkAxe(t, ctx, "order page with Change seats (375)")
	if err := chromedp.Do(ctx,
		chromedp.Focus(chromedp.CSS(`[data-exchange-link]`)),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`.exchange-form`)),
	); err != nil {
		t.Fatalf("open the picker: %v", err)
	}
	checked := evalJS[[]string](t, ctx, `[...document.querySelectorAll('input[name="seat"]:checked')].map(x => x.value).sort()`)
	if strings.Join(checked, ",") != strings.Join(sorted(seats[:2]), ",") {
		t.Errorf("the picker ticks %v, want the order's seats %v", checked, seats[:2])
	}
	if got := evalJS[string](t, ctx, `document.querySelector('[data-summary-total]').textContent`); got != orderTotal {
		t.Errorf("the picker's total %q, want the order's %s", got, orderTotal)
	}
	if note := evalJS[string](t, ctx, `document.querySelector('[data-summary-limit]').textContent`); !strings.Contains(note, "2 seats selected, as many as your order has") {
		t.Errorf("the count is told as %q", note)
	}
	screenshot(t, ctx, "exchange-picker-375")
	viewportShot(t, ctx, "exchange-picker-375-first-screen")
	checkAxe(t, ctx, "exchange picker (375)")
	if err := chromedp.Do(ctx,
		chromedp.Focus(chromedp.CSS(`input[name="seat"][value="`+seats[1]+`"]`)),
		chromedp.KeyEvent(" "),
		chromedp.Focus(chromedp.CSS(`input[name="seat"][value="`+seats[3]+`"]`)),
		chromedp.KeyEvent(" "),
	); err != nil {
		t.Fatal(err)
	}
	checked = evalJS[[]string](t, ctx, `[...document.querySelectorAll('input[name="seat"]:checked')].map(x => x.value).sort()`)
	if strings.Join(checked, ",") != strings.Join(sorted([]string{seats[0], seats[3]}), ",") {
		t.Fatalf("after the keys the picker ticks %v", checked)
	}
	// the new seat takes the order's price (with its voucher), not its list price
	if got, bar := evalJS[string](t, ctx, `document.querySelector('[data-summary-total]').textContent`),
		evalJS[string](t, ctx, `document.querySelector('[data-bar-summary]').textContent`); got != orderTotal || !strings.Contains(bar, orderTotal) {
		t.Errorf("the picker's total %q and bar %q, want the order's %s", got, bar, orderTotal)
	}
	if err := chromedp.Do(ctx,
		chromedp.Focus(chromedp.CSS(`.exchange-form button[type="submit"]`)),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`[data-exchanged]`)),
	); err != nil {
		t.Fatalf("send the exchange: %v", err)
	}
	screenshot(t, ctx, "exchange-done-375")
	if st := a.seatState(show, seats[1]); st != "free" {
		t.Errorf("the seat given up is %s", st)
	}
	if st := a.seatState(show, seats[3]); st != "held" {
		t.Errorf("the new seat is %s", st)
	}
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+strings.TrimPrefix(evalJS[string](t, ctx, `document.querySelector('[data-exchange-link]').getAttribute('href')`), a.base)+"?lang=zh-Hans"),
		chromedp.WaitVisible(chromedp.CSS(`.exchange-form`)),
	); err != nil {
		t.Fatal(err)
	}
	if h := evalJS[string](t, ctx, `document.documentElement.lang + "|" + document.querySelector('h1').textContent`); h != "zh-Hans|换座" {
		t.Errorf("the Chinese picker: %q", h)
	}
	screenshot(t, ctx, "exchange-picker-375-zh")
	checkAxe(t, ctx, "exchange picker in Chinese (375)")
}

// sorted returns a sorted copy of s.
func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
