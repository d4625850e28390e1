package web

import (
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestAdminShowDateTime_Browser: in chromium (its locale en-US, whose own time picker
// reads 03:45 PM and date picker mm/dd/yyyy) the new-show form's date and time fields
// are text fields read YYYY-MM-DD and HH:MM; the browser itself flags "7:30 PM" and
// "12/24/2027" as not matching, and a show typed 2027-04-14 at 21:05 is created at 21:05.
func TestAdminShowDateTime_Browser(t *testing.T) {
	a := newTestApp(t, nil)
	p := a.pickCatalog(a.demoToken("staff"))
	ctx := newBrowser(t)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	if err := a.signIn(ctx, "staff", "/admin/shows/new", `#show-form`); err != nil {
		t.Fatalf("sign in to the new-show form: %v", err)
	}
	fields, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`['date', 'start', 'opens_date', 'opens_time', 'closes_date', 'closes_time']
		.map(id => { const f = document.getElementById(id); return id + ' ' + f.type + ' ' + f.inputMode + ' ' + f.placeholder; })`))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fields {
		want := " text numeric YYYY-MM-DD"
		if strings.HasSuffix(strings.Fields(f)[0], "time") || strings.HasPrefix(f, "start ") {
			want = " text numeric HH:MM"
		}
		if !strings.HasSuffix(f, want) {
			t.Errorf("field %q, want type, inputmode and placeholder%s", f, want)
		}
	}
	check := func(id, typed string, valid bool) {
		t.Helper()
		got, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const f = document.getElementById('`+id+`'); f.value = '`+typed+`'; return f.checkValidity(); })()`))
		if err != nil || got != valid {
			t.Errorf("%s typed %q: valid %v, want %v (%v)", id, typed, got, valid, err)
		}
	}
	check("start", "7:30 PM", false)
	check("start", "24:00", false)
	check("start", "21:05", true)
	check("date", "12/24/2027", false)
	check("date", "2027-04-14", true)

	if err := chromedp.Do(ctx, chromedp.SetValue(css(`#movie_id`), p.movie)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const s = document.querySelector('#hall_id'); s.value = '`+p.hall+`';
			s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`)); err != nil {
		t.Fatalf("choose the hall: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(css(`#price_`+p.zones[0]))); err != nil {
		t.Fatalf("the hall's prices: %v", err)
	}
	for _, z := range p.zones {
		if err := chromedp.Do(ctx, chromedp.SetValue(css(`#price_`+z), "40")); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(css(`#start`), "\b\b\b\b\b21:05"),
		chromedp.SetValue(css(`#opens_date`), p.today),
		chromedp.SetValue(css(`#opens_time`), "00:00"),
		chromedp.Click(css(`#show-form button.button-primary`)),
		chromedp.WaitVisible(css(`#show-status`)),
	); err != nil {
		t.Fatalf("create the show: %v", err)
	}
	loc, main := browserAt(t, ctx, `main`)
	screenshot(t, ctx, "admin-show-24h")
	if !regexp.MustCompile(`/admin/shows/[0-9]+$`).MatchString(loc) || !strings.Contains(main, "21:05") {
		t.Errorf("the show created from 2027-04-14 21:05, %s:\n%s", loc, main)
	}
	if v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('opens_time').value`)); err != nil || v != "00:00" {
		t.Errorf("the edit form's sale opening time reads %q (%v), want 00:00", v, err)
	}
}
