package web

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"seatflow/services/catalog"
	"seatflow/services/demo"
)

// bigHall is a show in a hall built by demo.StadiumLayout with a share of its seats
// taken as orders (demo.StadiumTaken, demo.FillShowGroups).
type bigHall struct {
	show, hall string
	layout     *catalog.Layout
	groups     []demo.StadiumGroup
	ids        map[string]string // seat label -> seat id
}

// bigHallShow creates, through the admin API, a hall shaped by opt and a show of it on
// sale (purchase limit 6, zones priced 80, 180 and 480), then writes orders taking
// share of its seats.
func (a *testApp) bigHallShow(name string, opt demo.StadiumOptions, share float64) *bigHall {
	a.t.Helper()
	staff := a.demoToken("staff")
	text := demo.StadiumLayout(opt)
	r := a.do("POST", "/api/v1/admin/halls", staff, map[string]any{"name": name, "layout": text}, nil)
	if r.status != 201 {
		a.t.Fatalf("create hall %s: %d %.300s", name, r.status, r.body)
	}
	b := &bigHall{hall: r.json(a.t)["id"].(string), ids: map[string]string{}}
	r = a.do("POST", "/api/v1/admin/movies", staff, map[string]any{"title": name + " Live", "runtime_min": 150}, nil)
	if r.status != 201 {
		a.t.Fatalf("create movie: %d %s", r.status, r.body)
	}
	movie := r.json(a.t)["id"].(string)
	now := a.clock.Now()
	starts := now.Add(72 * time.Hour).Truncate(time.Hour)
	prices := []map[string]any{}
	for zone, price := range map[string]int{catalog.ZoneStandard: 8000, catalog.ZonePremium: 18000, catalog.ZoneVIP: 48000} {
		prices = append(prices, map[string]any{"zone": zone, "price_minor": price})
	}
	r = a.do("POST", "/api/v1/admin/shows", staff, map[string]any{"movie_id": movie, "hall_id": b.hall,
		"starts_at": starts.Format(time.RFC3339), "sale_opens_at": now.Add(-time.Hour).Format(time.RFC3339),
		"sale_closes_at": starts.Add(-time.Hour).Format(time.RFC3339), "prices": prices, "purchase_limit": 6}, nil)
	if r.status != 201 {
		a.t.Fatalf("create show: %d %s", r.status, r.body)
	}
	b.show = r.json(a.t)["id"].(string)
	var err error
	if b.layout, err = catalog.ParseLayout(text, catalog.NumberLeftToRight); err != nil {
		a.t.Fatal(err)
	}
	b.groups = demo.StadiumTaken(b.layout, 7, share)
	showID, _ := strconv.ParseInt(b.show, 10, 64)
	if _, err := demo.FillShowGroups(context.Background(), a.DB, showID, b.layout, b.groups, now); err != nil {
		a.t.Fatal(err)
	}
	// the show's map was loaded when it went on sale: drop it, the next read loads the
	// orders (a flush, as after a Redis restart)
	if err := a.Redis.Del(context.Background(), a.Seats.Keys(showID)...).Err(); err != nil {
		a.t.Fatal(err)
	}
	for _, s := range a.seatMap(b.show) {
		b.ids[s.Label] = s.ID
	}
	return b
}

// free is the id of a free standard seat of row label (a seat no group took), or "".
func (b *bigHall) free(row string) string {
	taken := map[int]bool{}
	for _, g := range b.groups {
		for _, i := range g.Seats {
			taken[i] = true
		}
	}
	for i, s := range b.layout.Seats {
		if s.RowLabel == row && !taken[i] && s.Kind == "standard" {
			return b.ids[s.Label]
		}
	}
	return ""
}

// pickSection is the section of b's overview with the most even mix of free and taken
// seats that has a section on its right.
func (a *testApp) pickSection(b *bigHall) int {
	a.t.Helper()
	doc := parseHTML(a.t, a.getPage("/shows/"+b.show, "").body)
	blocks := doc.Find(".section-col-head").Length()
	best, pick := -1, 0
	doc.Find("a.section-tile").Each(func(_ int, s *goquery.Selection) {
		href, _ := s.Attr("href")
		label, _ := s.Attr("aria-label")
		m := tileCounts.FindStringSubmatch(label)
		_, idx, _ := strings.Cut(href, "section=")
		n, err := strconv.Atoi(idx)
		if m == nil || err != nil || n%blocks == 0 {
			return
		}
		free, _ := strconv.Atoi(m[1])
		total, _ := strconv.Atoi(m[2])
		if mix := min(free, total-free); mix > best {
			best, pick = mix, n
		}
	})
	if pick == 0 {
		a.t.Fatal("no section to open")
	}
	return pick
}

var tileCounts = regexp.MustCompile(`(\d+) of (\d+) seats free`)

func parseHTML(t *testing.T, body []byte) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestBigHall_SectionedSeatMap: a hall of 4,466 seats opens on an overview of its
// sections (no seat checkboxes, each section a link with its free seats); a section's
// page has only its own seats, the way back and its neighbours, and carries seats
// ticked elsewhere; the live stream of a section sends only its seats; the JSON seat
// map still lists every seat.
func TestBigHall_SectionedSeatMap(t *testing.T) {
	a := newTestApp(t, nil)
	b := a.bigHallShow("Arena", demo.StadiumOptions{Rows: 60, Cols: 80}, 0.7)
	seats := a.seatMap(b.show)
	if len(seats) != 58*77 {
		t.Fatalf("the JSON map has %d seats, want %d", len(seats), 58*77)
	}
	free := 0
	for _, s := range seats {
		if s.State == "free" {
			free++
		}
	}

	r := a.getPage("/shows/"+b.show, "")
	if r.status != 200 {
		t.Fatalf("show page: %d", r.status)
	}
	doc := parseHTML(t, r.body)
	if n := doc.Find(`input[name="seat"]`).Length(); n != 0 {
		t.Errorf("the overview has %d seat checkboxes", n)
	}
	tiles := doc.Find(`a.section-tile[data-section-link]`)
	// 3 bands (25, 25 and 8 rows) x 4 blocks (25, 25, 25 and 2 seats)
	if tiles.Length() != 12 {
		t.Fatalf("%d section tiles, want 12", tiles.Length())
	}
	sum := 0
	tiles.Each(func(i int, s *goquery.Selection) {
		n, err := strconv.Atoi(strings.TrimSpace(s.Text()))
		if err != nil {
			t.Errorf("tile %d says %q", i, s.Text())
		}
		sum += n
		if href, _ := s.Attr("href"); href != "/shows/"+b.show+"?section="+strconv.Itoa(i+1) {
			t.Errorf("tile %d links to %s", i, href)
		}
		if label, _ := s.Attr("aria-label"); !strings.Contains(label, "seats free") {
			t.Errorf("tile %d is named %q", i, label)
		}
	})
	if sum != free {
		t.Errorf("the tiles count %d free seats, the map %d", sum, free)
	}
	if len(r.body) > 120<<10 {
		t.Errorf("the overview is %d KB", len(r.body)>>10)
	}

	// section 6: the middle band's second block, rows Z-AX (lines 27-51), seats 26-50
	r = a.getPage("/shows/"+b.show+"?section=6", "")
	doc = parseHTML(t, r.body)
	inputs := doc.Find(`.seats:not(.seats-elsewhere) input[name="seat"]`)
	if inputs.Length() != 25*25 {
		t.Errorf("section 6 has %d seat checkboxes, want 625", inputs.Length())
	}
	if title := doc.Find(".section-where h3").Text(); title != "Rows Z–AX, seats 26–50" {
		t.Errorf("section 6 is titled %q", title)
	}
	if v, _ := doc.Find(`input[type="hidden"][name="section"]`).Attr("value"); v != "6" {
		t.Errorf("the booking form carries section %q", v)
	}
	if live, _ := doc.Find(`[data-live-url]`).Attr("data-live-url"); live != "/shows/"+b.show+"/live?section=6" {
		t.Errorf("live stream %q", live)
	}
	steps := map[string]string{}
	doc.Find(`.section-nav a`).Each(func(_ int, s *goquery.Selection) {
		href, _ := s.Attr("href")
		steps[strings.TrimSpace(s.Text())] = href
	})
	base := "/shows/" + b.show + "?section="
	for text, want := range map[string]string{"All sections": base + "0", "↑ Nearer the screen": base + "2",
		"← Left": base + "5", "Right →": base + "7", "↓ Further back": base + "10"} {
		if steps[text] != want {
			t.Errorf("%q links to %q, want %q (links %v)", text, steps[text], want, steps)
		}
	}
	if n := doc.Find(`.row-label`).Length(); n != 2*25 || doc.Find(`.row-label`).First().Text() != "Z" {
		t.Errorf("%d row labels, first %q", n, doc.Find(`.row-label`).First().Text())
	}

	// a seat ticked in section 1 rides along, unseen and ticked, on section 6's page,
	// and every link there carries it
	elsewhere := b.free("A")
	if elsewhere == "" {
		t.Fatal("no free seat in row A")
	}
	r = a.getPage("/shows/"+b.show+"?section=6&seat="+elsewhere, "")
	doc = parseHTML(t, r.body)
	carried := doc.Find(`.seats-elsewhere[hidden] input[name="seat"][value="` + elsewhere + `"]`)
	if _, checked := carried.Attr("checked"); carried.Length() != 1 || !checked {
		t.Errorf("the seat ticked in section 1 is not carried: %d", carried.Length())
	}
	if _, placed := carried.Attr("data-row"); placed {
		t.Error("a carried seat has a grid place (the arrow keys would reach it)")
	}
	if n := doc.Find(`#selection-summary tbody tr`).Length(); n != 1 {
		t.Errorf("the summary lists %d seats, want the carried one", n)
	}
	if href, _ := doc.Find(`.section-all`).Attr("href"); href != base+"0&seat="+elsewhere {
		t.Errorf("the overview link %q drops the pick", href)
	}
	// without a section in the address, a page with picks opens at the first pick's
	r = a.getPage("/shows/"+b.show+"?seat="+elsewhere, "")
	if v, _ := parseHTML(t, r.body).Find(`input[type="hidden"][name="section"]`).Attr("value"); v != "1" {
		t.Errorf("coming back with a pick in section 1 opens section %q", v)
	}

	// a refused booking comes back to the section it was made in
	buyer := a.newUser()
	taken := b.ids[b.layout.Seats[b.groups[len(b.groups)/2].Seats[0]].Label]
	r = a.postPage("/shows/"+b.show, "/shows/"+b.show+"/book", buyer, map[string][]string{"seat": {taken}, "section": {"6"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("booking a taken seat: %d", r.status)
	}
	r = a.follow(r, buyer)
	doc = parseHTML(t, r.body)
	if v, _ := doc.Find(`input[type="hidden"][name="section"]`).Attr("value"); v != "6" || !strings.Contains(doc.Find(".alert").Text(), "taken") {
		t.Errorf("after a refusal: section %q, alert %q", v, doc.Find(".alert").Text())
	}

	// the live stream of section 6 names only section 6's seats
	inSection := map[string]bool{}
	parseHTML(t, a.getPage("/shows/"+b.show+"?section=6", "").body).Find(`.seats input[name="seat"]`).Each(func(_ int, s *goquery.Selection) {
		v, _ := s.Attr("value")
		inSection[v] = true
	})
	snap := liveSnapshotOf(t, a.base+"/shows/"+b.show+"/live?section=6")
	if len(snap.Held)+len(snap.Sold) == 0 {
		t.Fatalf("the section's snapshot names no taken seat: %+v", snap)
	}
	for _, id := range append(snap.Held, snap.Sold...) {
		if !inSection[id] {
			t.Fatalf("the section's snapshot names seat %s of another section", id)
		}
	}
}

// liveSnapshotOf reads the first "snapshot" event of a live seat stream.
func liveSnapshotOf(t *testing.T, url string) liveSnap {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 8<<20)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		if e, ok := strings.CutPrefix(line, "event: "); ok {
			event = e
		}
		if d, ok := strings.CutPrefix(line, "data: "); ok && event == "snapshot" {
			var s liveSnap
			if err := json.Unmarshal([]byte(d), &s); err != nil {
				t.Fatal(err)
			}
			return s
		}
	}
	t.Fatalf("no snapshot: %v", sc.Err())
	return liveSnap{}
}

type liveSnap struct {
	Held, Sold []string
}

// TestBigHall_LayoutBodies: a hall's layout may come in a body up to 256 KiB (a
// 300 x 300 layout is about 90 KB); other bodies stay limited to 64 KiB.
func TestBigHall_LayoutBodies(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	bad := strings.Repeat(strings.Repeat("x", 300)+"\n", 300) // 90 KB, every cell wrong
	cases := []struct {
		name, method, path string
		body               any
		status             int
		says               string
	}{
		{"a 90 KB layout is read (and refused for what it says)", "POST", "/api/v1/admin/halls", map[string]any{"name": "Big", "layout": bad}, 400, "not a layout character"},
		{"a 90 KB change of a layout is read", "PATCH", "/api/v1/admin/halls/1", map[string]any{"layout": bad}, 400, "not a layout character"},
		{"a layout over 256 KiB", "POST", "/api/v1/admin/halls", map[string]any{"name": "Big", "layout": strings.Repeat(bad, 3)}, 413, "256 KiB"},
		{"90 KB elsewhere", "POST", "/api/v1/admin/movies", map[string]any{"title": bad, "runtime_min": 90}, 413, "64 KiB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw, _ := json.Marshal(c.body)
			req, _ := http.NewRequest(c.method, a.base+c.path, strings.NewReader(string(raw)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+staff)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var body struct {
				Error struct{ Code, Message string }
			}
			_ = json.NewDecoder(res.Body).Decode(&body)
			if res.StatusCode != c.status || !strings.Contains(body.Error.Message, c.says) {
				t.Errorf("%d %+v, want %d saying %q", res.StatusCode, body.Error, c.status, c.says)
			}
		})
	}
	// the console's hall form takes the big layout too (its preview lists the problems)
	r := a.postHallForm("/admin/halls/new", "/admin/halls", staff, map[string][]string{"name": {"Big"}, "layout": {bad}, "numbering": {"ltr"}})
	if r.status != 400 || !strings.Contains(string(r.body), "not a layout character") {
		t.Errorf("hall form with a 90 KB layout: %d", r.status)
	}
}
