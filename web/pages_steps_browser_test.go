package web

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// tabTo presses Tab until the focused element matches sel (at most 80 times).
func tabTo(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	for i := 0; i < 80; i++ {
		if evalJS[bool](t, ctx, `!!document.activeElement && document.activeElement.matches(`+jsString(sel)+`)`) {
			return
		}
		if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatalf("Tab never reaches %s (at %s)", sel, evalJS[string](t, ctx, `document.activeElement ? document.activeElement.outerHTML.slice(0, 200) : ''`))
}

// press sends keys to the focused element and waits for sel to be visible.
func press(t *testing.T, ctx context.Context, keys, sel string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.KeyEvent(keys), chromedp.WaitVisible(chromedp.CSS(sel))); err != nil {
		t.Fatalf("press %q, wait for %s: %v", keys, sel, err)
	}
}

// TestBrowserSteps_KeyboardOnlyBooking: a buyer who does not use the seat map books
// with the keyboard alone through the step-through selection: the link to it, a zone,
// a row (the row select moved with the arrow keys), two seats ticked with Space, and
// Book; the order holds exactly those two seats. Every control has a label.
func TestBrowserSteps_KeyboardOnlyBooking(t *testing.T) {
	a := newTestApp(t, nil)
	show := a.showInHall("Hall 1")
	ctx := newBrowser(t)
	uxRegister(t, ctx, a)
	if err := chromedp.Do(ctx, chromedp.Navigate(a.base+"/shows/"+show), chromedp.WaitVisible(chromedp.CSS(`.seats`))); err != nil {
		t.Fatal(err)
	}
	tabTo(t, ctx, `.steps-link a`)
	press(t, ctx, kb.Enter, `select#step-zone`)
	if n := evalJS[int](t, ctx, `[...document.querySelectorAll('#steps select, #steps input:not([type=hidden])')].filter(e => !e.id || !document.querySelector('label[for="' + e.id + '"]')).length`); n != 0 {
		t.Errorf("%d controls of the step-through selection have no label", n)
	}
	tabTo(t, ctx, `select#step-zone`)
	tabTo(t, ctx, `.steps-choose button[type="submit"]`)
	press(t, ctx, kb.Enter, `select#step-row`)
	tabTo(t, ctx, `select#step-row`)
	// the second row: ArrowDown moves a focused closed select to its next option
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.ArrowDown)); err != nil {
		t.Fatal(err)
	}
	row := evalJS[string](t, ctx, `document.querySelector('#step-row').value`)
	tabTo(t, ctx, `.steps-choose button[type="submit"]`)
	press(t, ctx, kb.Enter, `.steps-book input[name="seat"]`)
	if got := evalJS[string](t, ctx, `new URLSearchParams(location.search).get('row')`); got != row {
		t.Fatalf("the page lists row %q, want %q (the one chosen)", got, row)
	}
	var labels []string
	for i := 0; i < 2; i++ {
		tabTo(t, ctx, fmt.Sprintf(`.steps-book li:nth-child(%d) input[name="seat"]`, i+2))
		if err := chromedp.Do(ctx, chromedp.KeyEvent(" ")); err != nil {
			t.Fatal(err)
		}
		labels = append(labels, evalJS[string](t, ctx, `document.querySelector('label[for="' + document.activeElement.id + '"]').textContent`))
	}
	if n := evalJS[int](t, ctx, `document.querySelectorAll('.steps-book input[name="seat"]:checked').length`); n != 2 {
		t.Fatalf("%d seats ticked with Space, want 2", n)
	}
	tabTo(t, ctx, `.steps-book button[type="submit"]`)
	press(t, ctx, kb.Enter, `form[action$="/pay"]`)
	page := evalJS[string](t, ctx, `document.querySelector('main').innerText`)
	for _, l := range labels { // "Row C, seat 2 · ¥45.00"
		label := strings.TrimPrefix(strings.SplitN(l, " · ", 2)[0], "Row ")
		seat := strings.Replace(label, ", seat ", "", 1)
		if !strings.Contains(page, seat) {
			t.Errorf("the order does not hold %s (%q): %s", seat, l, page)
		}
	}
	if !strings.HasPrefix(labels[0], "Row "+row+", seat ") {
		t.Errorf("the seats listed are %q, not of row %s", labels, row)
	}
}

// TestBrowserSteps_RefusalComesBackToTheList: a booking refused by the server's rules
// (here the single-seat rule under enforce) comes back to the step-through list of the
// same row with the refusal and the picks kept.
func TestBrowserSteps_RefusalComesBackToTheList(t *testing.T) {
	a := newTestApp(t, nil)
	show := a.showInHall("Hall 1")
	a.setRule(show, "enforce")
	row, ids := a.freeRow(show)
	ctx := newBrowser(t)
	uxRegister(t, ctx, a)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/shows/"+show+"?pick=list&zone=standard&row="+row),
		chromedp.WaitVisible(chromedp.CSS(`.steps-book`)),
		chromedp.Click(chromedp.CSS(`#step-seat-`+ids[row+"2"])),
		chromedp.Click(chromedp.CSS(`#step-seat-`+ids[row+"3"])),
		chromedp.Click(chromedp.CSS(`.steps-book button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.alert`)),
	); err != nil {
		t.Fatal(err)
	}
	if alert := evalJS[string](t, ctx, `document.querySelector('.alert').textContent`); !strings.Contains(alert, row+"1") {
		t.Errorf("the refusal does not name %s1: %q", row, alert)
	}
	if n := evalJS[int](t, ctx, `document.querySelectorAll('.steps-book input[name="seat"]:checked').length`); n != 2 {
		t.Errorf("back on the list with %d seats ticked, want the 2 picks", n)
	}
	if st := a.seatState(show, ids[row+"2"]); st != "free" {
		t.Errorf("seat %s2 is %s after the refusal", row, st)
	}
}

// TestBrowserUX_SoldSeatTapSaysSoAndSelectedIsNamed: tapping a sold seat says it is
// sold in a visible status note; Book then says no seat is selected and why, without
// sending the form (no misleading "Pick at least one seat" from the server); a ticked
// seat's accessible name says "selected", and "available" again once unticked.
func TestBrowserUX_SoldSeatTapSaysSoAndSelectedIsNamed(t *testing.T) {
	a := newTestApp(t, nil)
	show, picks := a.onSaleShow(2)
	other, _ := a.registerAs(fmt.Sprintf("sold%d@example.test", userSeq.Add(1)))
	a.payOrder(other, a.orderSeats(other, show, picks[:1]))
	sold, free := picks[0], picks[1]
	ctx := newBrowser(t)
	uxRegister(t, ctx, a)
	if err := chromedp.Do(ctx,
		chromedp.EmulateViewport(375, 667, chromedp.EmulateMobile, chromedp.EmulateTouch),
		chromedp.Navigate(a.base+"/shows/"+show),
		chromedp.WaitVisible(chromedp.CSS(`.seats`)),
	); err != nil {
		t.Fatal(err)
	}
	evalJS[bool](t, ctx, `(document.querySelector('.seats input[value="`+sold+`"]').closest('.seat').click(), true)`)
	label := evalJS[string](t, ctx, `document.querySelector('.seats input[value="`+sold+`"]').getAttribute('data-label')`)
	time.Sleep(100 * time.Millisecond)
	note := evalJS[string](t, ctx, `document.querySelector('[data-seat-note]').textContent`)
	if !strings.Contains(note, label) || !strings.Contains(note, "sold") || !shownInViewport(t, ctx, `[data-seat-note]`) {
		t.Errorf("tapping the sold seat %s: the note says %q (on screen: %v)", label, note, shownInViewport(t, ctx, `[data-seat-note]`))
	}
	if role := evalJS[string](t, ctx, `document.querySelector('[data-seat-note]').getAttribute('role')`); role != "status" {
		t.Errorf("the note is not announced: role %q", role)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.seat-form .form-actions button[type="submit"]`))); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if n := evalJS[int](t, ctx, `document.querySelectorAll('.alert').length`); n != 0 {
		t.Errorf("Book after the tap went to the server: %q", evalJS[string](t, ctx, `document.querySelector('.alert').textContent`))
	}
	if note := evalJS[string](t, ctx, `document.querySelector('[data-seat-note]').textContent`); !strings.Contains(note, "No seat is selected") || !strings.Contains(note, label) {
		t.Errorf("Book after the tap says %q", note)
	}
	name := func() string {
		return evalJS[string](t, ctx, `document.querySelector('.seats input[value="`+free+`"]').getAttribute('aria-label')`)
	}
	tick(t, ctx, free)
	if n := name(); !strings.HasSuffix(n, "selected") || strings.Contains(n, "available") {
		t.Errorf("a ticked seat is named %q", n)
	}
	if shownInViewport(t, ctx, `[data-seat-note]`) {
		t.Error("the note stays once a free seat is ticked")
	}
	tick(t, ctx)
	if n := name(); !strings.HasSuffix(n, "available") {
		t.Errorf("an unticked seat is named %q", n)
	}
}
