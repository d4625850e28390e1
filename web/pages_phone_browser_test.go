package web

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"seatflow/services/seats"
)

// phone is a 375 × 667 phone screen (an iPhone SE's CSS pixels).
func phone() chromedp.Action[chromedp.Void] {
	return chromedp.EmulateViewport(375, 667, chromedp.EmulateMobile, chromedp.EmulateTouch)
}

// topOf is the top of the first element matching sel, in CSS pixels from the top of
// the screen (-1 when there is none).
func topOf(t *testing.T, ctx context.Context, sel string) float64 {
	t.Helper()
	return evalJS[float64](t, ctx, `(() => { const e = document.querySelector(`+jsString(sel)+`);
		return e ? e.getBoundingClientRect().top : -1; })()`)
}

// jsString quotes s for a JavaScript string literal.
func jsString(s string) string {
	out := []byte{'\''}
	for _, r := range []byte(s) {
		if r == '\'' || r == '\\' {
			out = append(out, '\\')
		}
		out = append(out, r)
	}
	return string(append(out, '\''))
}

// shownInViewport reports whether the first element matching sel is shown and lies
// whole inside the screen.
func shownInViewport(t *testing.T, ctx context.Context, sel string) bool {
	t.Helper()
	return evalJS[bool](t, ctx, `(() => { const e = document.querySelector(`+jsString(sel)+`);
		if (!e || e.hidden || e.offsetHeight === 0) return false;
		const r = e.getBoundingClientRect();
		return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth; })()`)
}

// TestBrowserPhone_CompactHeaderAndMapOnFirstScreen: at 375 × 667, signed in, with the
// demo banner on, every page's header is one line with a Menu button; the seat map
// starts on the first screen of a show's page; the Menu button opens the navigation
// (and says so with aria-expanded) and Escape closes it; the console's sections fold
// behind their own button the same way.
func TestBrowserPhone_CompactHeaderAndMapOnFirstScreen(t *testing.T) {
	a := newTestApp(t, nil)
	show := a.showInHall("Hall 1")
	ctx := newBrowser(t)
	uxRegister(t, ctx, a)
	if err := chromedp.Do(ctx, phone(),
		chromedp.Navigate(a.base+"/shows/"+show),
		chromedp.WaitVisible(chromedp.CSS(`.seats`)),
	); err != nil {
		t.Fatal(err)
	}
	viewportShot(t, ctx, "phone-show-375x667")
	if h := evalJS[float64](t, ctx, `document.querySelector('.site-header').getBoundingClientRect().height`); h > 64 {
		t.Errorf("the header is %.0f px high on a phone, want one line (at most 64)", h)
	}
	if top := topOf(t, ctx, `.seatmap-scroll`); top < 0 || top > 667-100 {
		t.Errorf("the seat map starts at %.0f px on a 667-px screen: want at least 100 px of it on the first screen", top)
	}
	if shownInViewport(t, ctx, `.site-nav`) {
		t.Error("the navigation shows on a phone before the Menu button is pressed")
	}
	if !shownInViewport(t, ctx, `.site-header [data-menu-toggle]`) {
		t.Fatal("no Menu button in the phone's header")
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.site-header [data-menu-toggle]`))); err != nil {
		t.Fatal(err)
	}
	if !shownInViewport(t, ctx, `.site-nav a[href="/orders"]`) || !shownInViewport(t, ctx, `form[action="/logout"] button`) {
		t.Error("the Menu button does not open the navigation and the account's links")
	}
	if exp := evalJS[string](t, ctx, `document.querySelector('.site-header [data-menu-toggle]').getAttribute('aria-expanded')`); exp != "true" {
		t.Errorf("the open menu's button says aria-expanded=%q", exp)
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Escape)); err != nil {
		t.Fatal(err)
	}
	if shownInViewport(t, ctx, `.site-nav`) {
		t.Error("Escape does not close the menu")
	}
	// the home page and the console fold the same way
	if err := chromedp.Do(ctx, chromedp.Navigate(a.base+"/"), chromedp.WaitVisible(chromedp.CSS(`.date-strip`))); err != nil {
		t.Fatal(err)
	}
	if top := topOf(t, ctx, `.show-card`); top < 0 || top > 667-100 {
		t.Errorf("the first show of the programme starts at %.0f px on a 667-px screen", top)
	}
	ctx = newBrowser(t) // staff, in a browser of their own
	if err := chromedp.Do(ctx, phone()); err != nil {
		t.Fatal(err)
	}
	if err := a.signIn(ctx, "staff", "/admin/shows", `main h1`); err != nil {
		t.Fatal(err)
	}
	// the heading can be there before the page's styles fold the sections away
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`button[aria-controls="console-nav"]`))); err != nil {
		t.Fatal(err)
	}
	viewportShot(t, ctx, "phone-console-375x667")
	if shownInViewport(t, ctx, `.console-nav`) {
		t.Error("the console's sections show on a phone before their button is pressed")
	}
	if !shownInViewport(t, ctx, `button[aria-controls="console-nav"]`) {
		t.Fatal("no button for the console's sections on a phone")
	}
	if top := topOf(t, ctx, `main h1`); top < 0 || top > 200 {
		t.Errorf("the console page's heading starts at %.0f px on a phone", top)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`button[aria-controls="console-nav"]`))); err != nil {
		t.Fatal(err)
	}
	if !shownInViewport(t, ctx, `.console-nav a[href="/admin/orders"]`) {
		t.Error("the console's button does not open its sections")
	}
	// a wide screen shows everything without buttons
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(a.base+"/admin/shows"), chromedp.WaitVisible(chromedp.CSS(`.console-nav`))); err != nil {
		t.Fatal(err)
	}
	if shownInViewport(t, ctx, `[data-menu-toggle]`) {
		t.Error("a menu button shows on a wide screen")
	}
	if !shownInViewport(t, ctx, `.site-nav`) {
		t.Error("the navigation is hidden on a wide screen")
	}
}

// TestBrowserPhone_StrandedWarningInView: at 375 × 667 under enforce, ticking the
// row's second and third seats (leaving the first alone) shows the warning at once in
// the bottom bar beside Book and right above the map, both on screen, before Book is
// pressed; unticking hides both again.
func TestBrowserPhone_StrandedWarningInView(t *testing.T) {
	a := newTestApp(t, nil)
	show := a.showInHall("Hall 1")
	a.setRule(show, seats.RuleEnforce)
	row, ids := a.freeRow(show)
	ctx := newBrowser(t)
	uxRegister(t, ctx, a)
	if err := chromedp.Do(ctx, phone(),
		chromedp.Navigate(a.base+"/shows/"+show),
		chromedp.WaitVisible(chromedp.CSS(`.seats`)),
	); err != nil {
		t.Fatal(err)
	}
	// scroll the page so the row's first seats are on screen, as a buyer picking them
	evalJS[bool](t, ctx, `(document.querySelector('.seats input[value="`+ids[row+"1"]+`"]').closest('.seat').scrollIntoView({block: 'center'}), true)`)
	tick(t, ctx, ids[row+"2"], ids[row+"3"])
	viewportShot(t, ctx, "phone-stranded")
	if !shownInViewport(t, ctx, `[data-strand-bar]`) {
		t.Error("the bottom bar does not warn of the lone seat on screen")
	}
	if bar := evalJS[string](t, ctx, `document.querySelector('[data-strand-bar]').textContent`); !strings.Contains(bar, row+"1") || !strings.Contains(bar, "refused") {
		t.Errorf("the bottom bar says %q", bar)
	}
	if !shownInViewport(t, ctx, `[data-strand-map]`) {
		t.Error("the warning above the map is not on screen")
	}
	if m := evalJS[string](t, ctx, `document.querySelector('[data-strand-map]').textContent`); !strings.Contains(m, row+"1 as a single empty seat") {
		t.Errorf("the warning above the map says %q", m)
	}
	if loc := evalJS[string](t, ctx, `location.pathname`); loc != "/shows/"+show {
		t.Errorf("the warning came after leaving the page: at %s", loc)
	}
	tick(t, ctx)
	if shownInViewport(t, ctx, `[data-strand-bar]`) || shownInViewport(t, ctx, `[data-strand-map]`) {
		t.Error("the warning stays with no seat ticked")
	}
}
