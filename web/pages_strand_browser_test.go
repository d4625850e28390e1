package web

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/seats"
)

// setRule sets a show's single-seat rule through the admin API.
func (a *testApp) setRule(show, rule string) {
	a.t.Helper()
	r := a.do("PATCH", "/api/v1/admin/shows/"+show, a.demoToken("staff"), map[string]any{"single_seat_rule": rule}, nil)
	if r.status != 200 {
		a.t.Fatalf("set the rule %s on show %s: %d %s", rule, show, r.status, r.body)
	}
}

// freeRow returns the seat ids by label of a row of the show whose seats are all free
// standard seats, and the row's letter.
func (a *testApp) freeRow(show string) (string, map[string]string) {
	a.t.Helper()
	rows := map[string]map[string]string{}
	bad := map[string]bool{}
	for _, s := range a.seatMap(show) {
		row := strings.TrimRight(s.Label, "0123456789")
		if s.State != "free" || s.Kind != "standard" {
			bad[row] = true
		}
		if rows[row] == nil {
			rows[row] = map[string]string{}
		}
		rows[row][s.Label] = s.ID
	}
	letters := make([]string, 0, len(rows))
	for r := range rows {
		letters = append(letters, r)
	}
	sort.Strings(letters)
	for _, r := range letters {
		if !bad[r] && len(rows[r]) >= 6 {
			return r, rows[r]
		}
	}
	a.t.Fatalf("show %s has no row of free standard seats", show)
	return "", nil
}

// strandNotice is the seat picker's single-seat notice: shown or not, its text.
func strandNotice(t *testing.T, ctx context.Context) (bool, string) {
	t.Helper()
	var v struct {
		Shown bool
		Text  string
	}
	raw := evalJS[string](t, ctx, `JSON.stringify((() => { const n = document.querySelector('[data-strand-notice]');
		return n ? { Shown: !n.hidden && n.offsetHeight > 0, Text: n.textContent } : { Shown: false, Text: '' }; })())`)
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		t.Fatal(err)
	}
	return v.Shown, v.Text
}

// tick sets exactly the seats ids ticked, clicking those that change as a buyer would.
func tick(t *testing.T, ctx context.Context, ids ...string) {
	t.Helper()
	b, _ := json.Marshal(ids)
	evalJS[bool](t, ctx, `(() => { const want = new Set(`+string(b)+`);
		document.querySelectorAll('.seats input[name="seat"]:not([disabled])').forEach(x => {
			if (x.checked !== want.has(x.value)) x.click(); });
		return true; })()`)
}

// TestBrowserStrand_EnforceWarnsBeforeBookingAndRefuses: on a show whose rule is
// enforce, ticking two seats that leave the row's end seat alone names it by the
// booking button and says the booking will be refused; unticking one, or ticking a
// pair that leaves no lone seat, hides the notice; booking the stranding pair anyway
// comes back with the SINGLE_SEAT_GAP message naming the seat, and nothing is booked.
// The same at a phone's width.
func TestBrowserStrand_EnforceWarnsBeforeBookingAndRefuses(t *testing.T) {
	a := newTestApp(t, nil)
	show := a.showInHall("Hall 1")
	a.setRule(show, seats.RuleEnforce)
	row, ids := a.freeRow(show)
	s1, s2, s3 := ids[row+"1"], ids[row+"2"], ids[row+"3"]
	ctx := newBrowser(t)
	uxRegister(t, ctx, a)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/shows/"+show),
		chromedp.WaitVisible(chromedp.CSS(`input[name="seat"]`)),
	); err != nil {
		t.Fatal(err)
	}
	if shown, _ := strandNotice(t, ctx); shown {
		t.Fatal("the notice shows before any seat is ticked")
	}
	refused := "This leaves " + row + "1 as a single empty seat; the booking will be refused: move over by one seat."
	tick(t, ctx, s2, s3)
	if shown, text := strandNotice(t, ctx); !shown || text != refused {
		t.Fatalf("ticking %s2 and %s3: notice shown %v %q, want %q", row, row, shown, text, refused)
	}
	if sr := evalJS[string](t, ctx, `document.querySelector('[data-strand-notice]').getAttribute('role')`); sr != "status" {
		t.Errorf("the notice is not a status region: role %q", sr)
	}
	if disabled := evalJS[bool](t, ctx, `document.querySelector('.seat-form .form-actions button[type="submit"]').disabled`); disabled {
		t.Error("the booking button is disabled under enforce: the server decides")
	}
	screenshot(t, ctx, "strand-enforce-1280")
	tick(t, ctx, s3)
	if shown, text := strandNotice(t, ctx); shown {
		t.Errorf("one seat in the middle of a free row: the notice still says %q", text)
	}
	tick(t, ctx, s1, s2)
	if shown, text := strandNotice(t, ctx); shown {
		t.Errorf("a pair at the row's end: the notice still says %q", text)
	}
	tick(t, ctx, s2, s3)
	if shown, _ := strandNotice(t, ctx); !shown {
		t.Fatal("the notice does not come back")
	}
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`.seat-form .form-actions button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.alert`)),
	); err != nil {
		t.Fatalf("book the stranding pair: %v", err)
	}
	alert := evalJS[string](t, ctx, `document.querySelector('.alert').textContent`)
	if !strings.Contains(alert, row+"1") || !strings.Contains(alert, "single empty seat") {
		t.Errorf("the refusal does not name %s1 as a single empty seat: %q", row, alert)
	}
	for _, id := range []string{s1, s2, s3} {
		if st := a.seatState(show, id); st != "free" {
			t.Errorf("seat %s is %s after the refused booking", id, st)
		}
	}
	// the picks are kept, and the notice says it again
	if shown, text := strandNotice(t, ctx); !shown || text != refused {
		t.Errorf("after the refusal: notice shown %v %q", shown, text)
	}
	screenshot(t, ctx, "strand-refused-1280")

	if err := chromedp.Do(ctx,
		chromedp.EmulateViewport(375, 812, chromedp.EmulateMobile, chromedp.EmulateTouch),
		chromedp.Navigate(a.base+"/shows/"+show),
		chromedp.WaitVisible(chromedp.CSS(`input[name="seat"]`)),
	); err != nil {
		t.Fatal(err)
	}
	tick(t, ctx, s2, s3)
	if shown, text := strandNotice(t, ctx); !shown || text != refused {
		t.Errorf("at 375 px: notice shown %v %q", shown, text)
	}
	if w := evalJS[int](t, ctx, `document.documentElement.scrollWidth`); w > 375 {
		t.Errorf("the page is %d px wide on a 375-px screen", w)
	}
	if r := evalJS[float64](t, ctx, `document.querySelector('[data-strand-notice]').getBoundingClientRect().right`); r > 375 {
		t.Errorf("the notice runs off a 375-px screen (right edge %.0f)", r)
	}
	evalJS[bool](t, ctx, `(document.querySelector('[data-strand-notice]').scrollIntoView({block: 'center'}), true)`)
	viewportShot(t, ctx, "strand-enforce-375")
}

// TestBrowserStrand_WarnBooksAndNamesTheSeat: under warn the picker names the seat the
// pick leaves alone (without saying it will be refused), the booking goes through, and
// the order page it leads to names the seat.
func TestBrowserStrand_WarnBooksAndNamesTheSeat(t *testing.T) {
	a := newTestApp(t, nil)
	show := a.showInHall("Hall 1")
	a.setRule(show, seats.RuleWarn)
	row, ids := a.freeRow(show)
	ctx := newBrowser(t)
	uxRegister(t, ctx, a)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/shows/"+show),
		chromedp.WaitVisible(chromedp.CSS(`input[name="seat"]`)),
	); err != nil {
		t.Fatal(err)
	}
	tick(t, ctx, ids[row+"2"], ids[row+"3"])
	want := "This leaves " + row + "1 as a single empty seat."
	if shown, text := strandNotice(t, ctx); !shown || text != want {
		t.Fatalf("under warn: notice shown %v %q, want %q", shown, text, want)
	}
	screenshot(t, ctx, "strand-warn-1280")
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`.seat-form .form-actions button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`form[action$="/pay"]`)),
	); err != nil {
		t.Fatalf("book under warn: %v", err)
	}
	note := evalJS[string](t, ctx, `(document.querySelector('#strand-note') || {}).textContent || ''`)
	if note != "Your seats leave "+row+"1 as a single empty seat, which is hard to sell." {
		t.Errorf("the order page's notice: %q", note)
	}
	for _, l := range []string{"2", "3"} {
		if st := a.seatState(show, ids[row+l]); st != "held" {
			t.Errorf("seat %s%s is %s after booking under warn", row, l, st)
		}
	}
	screenshot(t, ctx, "strand-warn-order-1280")
	// the notice is for seats of the show's hall only
	url := evalJS[string](t, ctx, `location.pathname`)
	if err := chromedp.Do(ctx, chromedp.Navigate(a.base+url+"?stranded=ZZ99&stranded=%3Cb%3E"),
		chromedp.WaitVisible(chromedp.CSS(`form[action$="/pay"]`))); err != nil {
		t.Fatal(err)
	}
	if n := evalJS[int](t, ctx, `document.querySelectorAll('#strand-note').length`); n != 0 {
		t.Error("the order page names seats that are not in the hall")
	}
}

// strandHallLayout is a hall with every kind of cell the single-seat rule meets:
// wheelchair spaces and companion seats, blocked seats, aisles and gaps of one and two
// columns, zones side by side in a run, and short runs.
const strandHallLayout = "WCSSS.SSSSSSSSSS.SSSCW\n" +
	"SSSSSBSSSSSSSSSSSSSSSS\n" +
	"SS.SSSS..SSSSSSBSS.SSS\n" +
	"PPPPPSSSSSS.VVVVVVPPPP\n" +
	"SSCWSS.SSSSSSSSS.WCSSS\n" +
	"VVVVVVVVVVVVVVVVVVVVVV\n" +
	"S.S.SS.SSS.SSSS.SSSSSS\n" +
	"SSSSSSSSSSSSSSSSSSSSSS"

// TestBrowserStrand_PickerAgreesWithGo: on a hall with every kind of cell, for random
// seat states and random picks (mostly seats side by side), the seats the picker names
// and whether it says enforce refuses them are what seats.Stranded and seats.GapRefused
// say.
func TestBrowserStrand_PickerAgreesWithGo(t *testing.T) {
	a := newTestApp(t, nil)
	ctx := context.Background()
	p := a.pickCatalog(a.demoToken("staff"))
	movie, _ := strconv.ParseInt(p.movie, 10, 64)
	hl, err := a.CatalogWriter.CreateHall(ctx, 0, catalog.HallInput{Name: "Strand hall", Layout: strandHallLayout, Numbering: catalog.NumberLeftToRight})
	if err != nil {
		t.Fatal(err)
	}
	now := a.clock.Now()
	var prices []catalog.ZonePrice
	for _, z := range hl.Zones {
		prices = append(prices, catalog.ZonePrice{Zone: z.Code, PriceMinor: 4500})
	}
	show, err := a.CatalogWriter.CreateShow(ctx, 0, catalog.NewShow{MovieID: movie, HallID: hl.ID, StartsAt: now.Add(72 * time.Hour),
		SaleOpensAt: now.Add(-time.Minute), SaleClosesAt: now.Add(71 * time.Hour), Prices: prices, SingleSeatRule: seats.RuleEnforce})
	if err != nil {
		t.Fatal(err)
	}
	hall, err := a.Catalog.Hall(ctx, hl.ID)
	if err != nil {
		t.Fatal(err)
	}
	bctx := newBrowser(t)
	if err := chromedp.Do(bctx,
		chromedp.Navigate(a.base+"/shows/"+strconv.FormatInt(show.ID, 10)),
		chromedp.WaitVisible(chromedp.CSS(`input[name="seat"]`)),
	); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the live map's first snapshot, before the states are set by hand
	screenshot(t, bctx, "strand-hall")

	type trial struct {
		Taken  []string `json:"taken"`
		Chosen []string `json:"chosen"`
	}
	type verdict struct {
		Seats   string `json:"seats"`
		Refused bool   `json:"refused"`
	}
	rng := rand.New(rand.NewPCG(3, 5))
	id := func(i int) string { return strconv.FormatInt(hall.Seats[i].ID, 10) }
	sellable := func(i int) bool { return hall.Seats[i].Kind != services.KindBlocked }
	var trials []trial
	var frees [][]bool
	var chosens [][]int32
	for n := 0; n < 1000; n++ {
		free := make([]bool, len(hall.Seats))
		share := rng.IntN(10)
		var tr trial
		for i := range free {
			free[i] = sellable(i) && rng.IntN(10) >= share
			if sellable(i) && !free[i] {
				tr.Taken = append(tr.Taken, id(i))
			}
		}
		picked := map[int]bool{}
		var chosen []int32
		for k := 1 + rng.IntN(2); k > 0; k-- { // one or two blocks of 1..4 seats side by side
			start, size := rng.IntN(len(hall.Seats)), 1+rng.IntN(4)
			for j := start; j < len(hall.Seats) && j < start+size; j++ {
				s := &hall.Seats[j]
				if !free[j] || picked[j] || s.Row != hall.Seats[start].Row || s.Col != hall.Seats[start].Col+(j-start) {
					break
				}
				picked[j] = true
				chosen = append(chosen, int32(j))
				tr.Chosen = append(tr.Chosen, id(j))
			}
		}
		trials = append(trials, tr)
		frees = append(frees, free)
		chosens = append(chosens, chosen)
	}
	b, _ := json.Marshal(trials)
	raw := evalJS[string](t, bctx, `JSON.stringify((() => {
		const form = document.querySelector('.seat-form');
		const inputs = [...form.querySelectorAll('.seats input[name="seat"]')];
		const note = form.querySelector('[data-strand-notice]');
		return `+string(b)+`.map(tr => {
			const taken = new Set(tr.taken), chosen = new Set(tr.chosen || []);
			inputs.forEach(x => { x.disabled = taken.has(x.value); x.checked = chosen.has(x.value); });
			form.dispatchEvent(new CustomEvent('seatflow:seats', { bubbles: true }));
			return { seats: note.getAttribute('data-seats'), refused: note.getAttribute('data-refused') === 'true' };
		});
	})())`)
	var got []verdict
	if err := json.Unmarshal([]byte(raw), &got); err != nil || len(got) != len(trials) {
		t.Fatalf("the picker's verdicts: %v (%d of %d)", err, len(got), len(trials))
	}
	strandedSome, refusedSome := 0, 0
	for n := range trials {
		stranded, refuse := seats.GapRefused(hall, frees[n], chosens[n])
		want := strings.Join(seats.SeatLabels(hall, stranded), " ")
		if got[n].Seats != want || got[n].Refused != refuse {
			t.Errorf("trial %d, picks %v: the picker says %q refused %v; Go says %q refused %v",
				n, seats.SeatLabels(hall, chosens[n]), got[n].Seats, got[n].Refused, want, refuse)
		}
		if want != "" {
			strandedSome++
		}
		if refuse {
			refusedSome++
		}
	}
	t.Logf("%d trials: %d strand a seat, %d of them refused under enforce", len(trials), strandedSome, refusedSome)
	if strandedSome < 50 || refusedSome < 20 || strandedSome-refusedSome < 5 {
		t.Errorf("the trials do not cover the rule: %d strand, %d refused", strandedSome, refusedSome)
	}
}
