package handlers

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"seatflow/services"
	"seatflow/services/seats"
	"seatflow/views"
)

// LiveService is what the live seat map needs of seats.SeatEvents.
type LiveService interface {
	Watch(showID int64) (<-chan seats.SeatChange, func(), error)
}

// Live stream timing: a comment every liveKeepAlive keeps proxies from closing an idle
// stream; after LiveStreamFor the stream ends and the browser reconnects (getting a
// fresh snapshot), so no connection lives for ever.
const (
	liveKeepAlive = 15 * time.Second
	LiveStreamFor = 30 * time.Minute
)

// liveSnapshot is the "snapshot" event: every seat that is not free, by state, and the
// free seats per zone. Seats not listed are free.
type liveSnapshot struct {
	Held      []string       `json:"held"`
	Sold      []string       `json:"sold"`
	Blocked   []string       `json:"blocked"`
	ZoneFree  map[string]int `json:"zones"`
	SeatsLeft int            `json:"seats_left"`
}

// liveChange is the "seats" event: the new state of each changed seat (free, held,
// sold or blocked) and the free seats per zone after the change.
type liveChange struct {
	Seats     map[string]string `json:"seats"`
	ZoneFree  map[string]int    `json:"zones"`
	SeatsLeft int               `json:"seats_left"`
}

// showLive streams a show's seat changes as Server-Sent Events: first a "snapshot"
// (read once per connection), then a "seats" event per change as the seat scripts
// publish it (fanned out in this process: no Redis call per viewer or change), and
// "snapshot" again when the viewer fell behind. Never who holds a seat. A large hall's
// section (?section=N) reads only its own seats for a snapshot and is sent only their
// changes.
func (d *Deps) showLive(c *fiber.Ctx) error {
	showID, ok := idParam(c, "id")
	if !ok || d.Live == nil {
		return renderErrorPage(c, fiber.StatusNotFound, tr(c, "err.no_show", nil))
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	if _, err := d.Shows.Get(ctx, showID); err != nil {
		return errorPage(c, err)
	}
	changes, stop, err := d.Live.Watch(showID)
	if errors.Is(err, seats.ErrTooManyViewers) {
		c.Set(fiber.HeaderRetryAfter, "30")
		return renderErrorPage(c, fiber.StatusServiceUnavailable, tr(c, "err.live_busy", nil))
	}
	if err != nil {
		stop()
		return errorPage(c, err)
	}
	c.Set(fiber.HeaderContentType, "text/event-stream; charset=utf-8")
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set("X-Accel-Buffering", "no") // proxies must not hold events back
	// a section of a large hall's page asks for its own seats only: the snapshot of a
	// stadium is otherwise some 60,000 seat ids
	section, _ := sectionNumber(c.Query("section"))
	// the stream outlives the handler and its Fiber context: nothing below may touch c
	shows := d.Shows
	var sectionSeats map[int64]bool // the section's seats: its changes alone are sent (nil: every seat)
	snapshot := func() ([]byte, error) {
		sctx, scancel := context.WithTimeout(context.Background(), requestTimeout)
		defer scancel()
		// a section reads its own seats from the seat cache, never the whole map
		m, err := shows.SeatMapOf(sctx, showID, func(h *services.Hall) []int64 { return sectionReadIDs(h, section, nil) }, 0)
		if err != nil {
			return nil, err
		}
		snap := snapshotOf(m)
		if m.Partial {
			sectionSeats = views.SectionSeatIDs(m.Hall, section)
			snap = snap.only(sectionSeats)
		}
		return json.Marshal(snap)
	}
	c.Context().SetBodyStreamWriter(fasthttp.StreamWriter(func(w *bufio.Writer) {
		defer stop()
		send := func(event string, data []byte) bool {
			if event != "" {
				w.WriteString("event: " + event + "\n")
			}
			w.WriteString("data: ")
			w.Write(data)
			w.WriteString("\n\n")
			return w.Flush() == nil
		}
		w.WriteString("retry: 2000\n")
		if b, err := snapshot(); err != nil || !send("snapshot", b) {
			return
		}
		keep := time.NewTicker(liveKeepAlive)
		defer keep.Stop()
		end := time.After(LiveStreamFor)
		for {
			select {
			case ch, open := <-changes:
				if !open {
					return
				}
				var b []byte
				var err error
				event := "seats"
				if ch.Reload {
					event = "snapshot"
					b, err = snapshot()
				} else {
					b, err = json.Marshal(changeOf(ch, sectionSeats))
				}
				if err != nil || !send(event, b) {
					return
				}
			case <-keep.C:
				if _, err := w.WriteString(": keep-alive\n\n"); err != nil || w.Flush() != nil {
					return
				}
			case <-end:
				return
			}
		}
	}))
	return nil
}

func snapshotOf(m *seats.SeatMap) liveSnapshot {
	s := liveSnapshot{Held: []string{}, Sold: []string{}, Blocked: []string{}, ZoneFree: map[string]int{}}
	for _, z := range m.Show.Zones {
		s.ZoneFree[z.Code] = z.SeatsLeft
	}
	s.SeatsLeft = m.Show.SeatsLeft
	for id, st := range m.States {
		k := strconv.FormatInt(id, 10)
		switch st {
		case services.StateHeld:
			s.Held = append(s.Held, k)
		case services.StateSold:
			s.Sold = append(s.Sold, k)
		case services.StateBlocked:
			s.Blocked = append(s.Blocked, k)
		}
	}
	for _, l := range [][]string{s.Held, s.Sold, s.Blocked} {
		sort.Strings(l)
	}
	return s
}

// only is the snapshot of the seats of keep (seat id -> true) alone; the zone counts
// stay the show's.
func (s liveSnapshot) only(keep map[int64]bool) liveSnapshot {
	out := s
	for _, l := range []*[]string{&out.Held, &out.Sold, &out.Blocked} {
		kept := []string{}
		for _, id := range *l {
			if n, err := strconv.ParseInt(id, 10, 64); err == nil && keep[n] {
				kept = append(kept, id)
			}
		}
		*l = kept
	}
	return out
}

// changeOf is the "seats" event of ch: every changed seat, or those of keep alone (a
// section's stream; nil keeps all); the zone counts are the show's either way.
func changeOf(ch seats.SeatChange, keep map[int64]bool) liveChange {
	out := liveChange{Seats: make(map[string]string, len(ch.Seats)), ZoneFree: ch.ZoneFree}
	for id, st := range ch.Seats {
		if keep == nil || keep[id] {
			out.Seats[strconv.FormatInt(id, 10)] = st
		}
	}
	for _, n := range ch.ZoneFree {
		out.SeatsLeft += n
	}
	return out
}
