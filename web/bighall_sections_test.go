package web

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/redis/go-redis/v9"

	"seatflow/services/demo"
)

// seatFieldHook counts what the server reads of one show's seats hash: the fields
// HMGET names and the HGETALL calls (the whole map).
type seatFieldHook struct {
	key     string
	mu      sync.Mutex
	fields  int
	hgetall int
}

func (h *seatFieldHook) note(c redis.Cmder) {
	args := c.Args()
	if len(args) < 2 {
		return
	}
	if k, _ := args[1].(string); k != h.key {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	switch strings.ToLower(c.Name()) {
	case "hmget":
		h.fields += len(args) - 2
	case "hgetall":
		h.hgetall++
	}
}

func (h *seatFieldHook) take() (fields, whole int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	fields, whole = h.fields, h.hgetall
	h.fields, h.hgetall = 0, 0
	return fields, whole
}

func (h *seatFieldHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *seatFieldHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, c redis.Cmder) error { h.note(c); return next(ctx, c) }
}
func (h *seatFieldHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			h.note(c)
		}
		return next(ctx, cmds)
	}
}

// sectionSeatIDs are the seat ids of a section page's own grid (not the carried picks),
// and the free standard ones among them.
func sectionSeatIDs(doc *goquery.Document) (all map[string]bool, free []string) {
	all = map[string]bool{}
	doc.Find(`.seats:not(.seats-elsewhere) input[name="seat"]`).Each(func(_ int, s *goquery.Selection) {
		v, _ := s.Attr("value")
		all[v] = true
		if _, off := s.Attr("disabled"); !off && s.AttrOr("data-kind", "") == "standard" {
			free = append(free, v)
		}
	})
	return all, free
}

// TestBigHall_ReadBySection (stadiums read by section), on a hall of 4,466
// seats, 70 % taken:
//   - a section's page reads from Redis only its own 625 seats (and a carried pick),
//     never the whole map, while the overview still reads the whole map;
//   - the live stream of a section reads only its seats for the snapshot and sends the
//     changes of its seats alone (an order taking one seat here and one elsewhere
//     arrives as this section's seat);
//   - the staff house-seat page works by section: an overview without seats, a section
//     page with its seats alone, both far under 1 MB, and blocking and unblocking a
//     seat there goes back to the section with the seat changed.
func TestBigHall_ReadBySection(t *testing.T) {
	a := newTestApp(t, nil)
	b := a.bigHallShow("Arena", demo.StadiumOptions{Rows: 60, Cols: 80}, 0.7)
	showID, _ := strconv.ParseInt(b.show, 10, 64)
	hook := &seatFieldHook{key: a.Seats.Keys(showID)[0]}
	a.Redis.AddHook(hook)
	elsewhere := b.free("A") // a free seat of section 1

	t.Run("section page reads only its seats", func(t *testing.T) {
		for _, tc := range []struct {
			name, query  string
			fields, read int // HMGET fields, HGETALL calls
		}{
			{"section 6", "?section=6", 625, 0},
			{"section 6 with a pick from section 1", "?section=6&seat=" + elsewhere, 626, 0},
			{"the overview", "", 0, 1},
		} {
			t.Run(tc.name, func(t *testing.T) {
				hook.take()
				r := a.getPage("/shows/"+b.show+tc.query, "")
				if r.status != 200 {
					t.Fatalf("GET: %d", r.status)
				}
				if fields, whole := hook.take(); fields != tc.fields || whole != tc.read {
					t.Errorf("read %d seat fields and %d whole maps, want %d and %d", fields, whole, tc.fields, tc.read)
				}
			})
		}
		doc := parseHTML(t, a.getPage("/shows/"+b.show+"?section=6", "").body)
		all, free := sectionSeatIDs(doc)
		if len(all) != 625 || len(free) == 0 || len(free) == 625 {
			t.Errorf("section 6: %d seats, %d free", len(all), len(free))
		}
		if !strings.Contains(doc.Find(".section-free-text").Text(), "of") {
			t.Errorf("section 6 does not count its free seats: %q", doc.Find(".section-free-text").Text())
		}
		// the small map marks the sections it did not read as such, not as full
		if n := doc.Find(".section-minimap .section-unread").Length(); n != 11 {
			t.Errorf("%d sections marked unread on the small map, want the 11 others", n)
		}
	})

	t.Run("live stream sends the section's changes", func(t *testing.T) {
		doc := parseHTML(t, a.getPage("/shows/"+b.show+"?section=6", "").body)
		inSection, free := sectionSeatIDs(doc)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		hook.take()
		events := liveEvents(t, ctx, a.base+"/shows/"+b.show+"/live?section=6")
		snap := <-events
		if snap.event != "snapshot" {
			t.Fatalf("first event %q", snap.event)
		}
		if fields, whole := hook.take(); fields != 625 || whole != 0 {
			t.Errorf("the snapshot read %d seat fields and %d whole maps, want 625 and none", fields, whole)
		}
		here := free[len(free)/2]
		o := a.do("POST", "/api/v1/shows/"+b.show+"/orders", a.newUser(), map[string]any{"seat_ids": []string{here, elsewhere}}, nil)
		if o.status != 201 {
			t.Fatalf("order: %d %s", o.status, o.body)
		}
		for ev := range events {
			if ev.event == "snapshot" {
				continue // a reload: read again
			}
			var ch struct {
				Seats map[string]string `json:"seats"`
			}
			if err := json.Unmarshal([]byte(ev.data), &ch); err != nil {
				t.Fatal(err)
			}
			for id := range ch.Seats {
				if !inSection[id] {
					t.Errorf("the section's stream sent seat %s of another section", id)
				}
			}
			if ch.Seats[here] == "held" {
				return
			}
		}
		t.Fatalf("the section's stream never sent seat %s held", here)
	})

	t.Run("house seats by section", func(t *testing.T) {
		staff := a.demoToken("staff")
		base := "/admin/shows/" + b.show + "/seats"
		over := a.getPage(base, staff)
		odoc := parseHTML(t, over.body)
		if over.status != 200 || odoc.Find(`input[name="seat"]`).Length() != 0 || odoc.Find(`.staff-section-grid a.section-tile`).Length() != 12 {
			t.Fatalf("overview: %d, %d seat boxes, %d sections", over.status, odoc.Find(`input[name="seat"]`).Length(),
				odoc.Find(`.staff-section-grid a.section-tile`).Length())
		}
		page := base + "?section=6"
		sec := a.getPage(page, staff)
		sdoc := parseHTML(t, sec.body)
		if n := sdoc.Find(`.seat-form .seats .seat`).Length(); sec.status != 200 || n != 625 {
			t.Fatalf("section 6: %d, %d seats", sec.status, n)
		}
		for _, p := range []apiResp{over, sec} {
			if len(p.body) > 1<<20 {
				t.Errorf("a staff page is %d KB", len(p.body)>>10)
			}
		}
		if a.getPage(base+"?section=13", staff).status != 404 {
			t.Error("a section the hall lacks is not refused")
		}
		seat := sdoc.Find(`.seat-form input[name="seat"]`).First().AttrOr("value", "")
		for _, step := range []struct{ action, want string }{{"block", "blocked"}, {"unblock", "free"}} {
			r := a.seatsForm(t, page, base+"/house", staff, url.Values{"action": {step.action}, "seat": {seat}, "section": {"6"}})
			if r.status != http.StatusSeeOther || r.header.Get("Location") != page {
				t.Fatalf("%s: %d to %q", step.action, r.status, r.header.Get("Location"))
			}
			if st := a.seatState(b.show, seat); st != step.want {
				t.Errorf("after %s the seat is %s, want %s", step.action, st, step.want)
			}
		}
	})
}

type liveEvent struct{ event, data string }

// liveEvents streams the events of a live seat stream until ctx ends.
func liveEvents(t *testing.T, ctx context.Context, url string) <-chan liveEvent {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan liveEvent, 16)
	go func() {
		defer close(out)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 8<<20)
		event := ""
		for sc.Scan() {
			line := sc.Text()
			if e, ok := strings.CutPrefix(line, "event: "); ok {
				event = e
			}
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				select {
				case out <- liveEvent{event, d}:
				case <-ctx.Done():
					return
				}
				event = ""
			}
		}
	}()
	return out
}
