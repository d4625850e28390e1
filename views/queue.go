package views

import (
	"encoding/json"
	"time"

	"seatflow/services"
)

// A waiting room entry's status and why a room closed (the values of the waitingroom
// package's Status* and Closed* constants).
const (
	RoomStatusWaiting   = "waiting"
	RoomStatusAdmitted  = "admitted"
	RoomStatusClosed    = "closed"
	RoomClosedSoldOut   = "sold_out"
	RoomClosedSale      = "sale_closed"
	RoomClosedCancelled = "cancelled"
)

// RoomIdleFor is how long a buyer whose turn came may stay silent before the place is
// given up (the waitingroom package's IdleFor).
const RoomIdleFor = 120 * time.Second

// QueueEntry is a buyer's place in a show's waiting room: its Status (RoomStatus*
// constants), its Position among those waiting (1-based; 0 when not waiting, and before
// the sale opens), the position it was first given (the progress bar's length), how
// many wait in the room, the estimated Wait, and why the room closed (RoomClosed*, or
// ""); Opened says the sale has opened.
type QueueEntry struct {
	Status        string
	Position      int
	FirstPosition int
	Waiting       int
	Wait          QueueEstimate
	Closed        string
	Opened        bool
}

// QueueEstimate is an estimated wait in seconds, with a low and a high end.
type QueueEstimate struct{ Seconds, Low, High int }

// QueueURL is a show's waiting page; QueueAPIURL its JSON entry and QueueEventsURL its
// event stream.
func QueueURL(showID int64) string       { return "/shows/" + i64(showID) + "/queue" }
func QueueAPIURL(showID int64) string    { return "/api/v1/shows/" + i64(showID) + "/queue" }
func QueueEventsURL(showID int64) string { return "/api/v1/shows/" + i64(showID) + "/queue/events" }

// QueuePageProps is the waiting page of a show's waiting room: the show, and the
// buyer's entry (nil: not in the queue yet, the page offers to join).
type QueuePageProps struct {
	Page  Page
	Show  *services.Show
	Entry *QueueEntry
	Now   time.Time
	Zone  *time.Location
}

// What the waiting page shows (QueuePageProps.State; the section's data-queue-state,
// which static/js/queue.js reads).
const (
	QueueJoin     = "join"     // not in the queue: explain and offer to join
	QueuePre      = "pre"      // waiting for the sale to open, no position yet
	QueueWaiting  = "waiting"  // waiting with a position
	QueueAdmitted = "admitted" // admitted: on to the seat map
	QueueExpired  = "expired"  // the place lapsed: offer to join again
	QueueClosed   = "closed"   // the room closed (or the show takes no queue): say why
)

// State is what the page shows (Queue* constants). Without an entry, a show that can
// no longer take a queue (cancelled, sale closed, started) reads as closed.
func (p QueuePageProps) State() string {
	e := p.Entry
	if e == nil {
		if st := p.Show.StatusAt(p.Now); st != services.ShowOnSale && st != services.ShowScheduled {
			return QueueClosed
		}
		return QueueJoin
	}
	switch e.Status {
	case RoomStatusWaiting:
		if !e.Opened {
			return QueuePre
		}
		return QueueWaiting
	case RoomStatusAdmitted:
		return QueueAdmitted
	case RoomStatusClosed:
		return QueueClosed
	}
	return QueueExpired
}

// Live reports whether the page follows the entry as it moves (static/js/queue.js).
func (p QueuePageProps) Live() bool {
	st := p.State()
	return st == QueuePre || st == QueueWaiting
}

// ClosedReason says in l why the queue takes nobody: the room's reason, else the
// show's state.
func (p QueuePageProps) ClosedReason(l Lang) string {
	if p.Entry != nil {
		switch p.Entry.Closed {
		case RoomClosedSoldOut:
			return l.T("queue.closed_sold_out", nil)
		case RoomClosedSale:
			return l.T("queue.closed_sale_closed", nil)
		case RoomClosedCancelled:
			return l.T("queue.closed_cancelled", nil)
		}
	}
	if p.Show.Status == services.ShowCancelled {
		return l.T("queue.closed_cancelled", nil)
	}
	if r := l.StateOf(p.Show, p.Now, p.Zone).Reason; r != "" {
		return r
	}
	return l.T("queue.closed_sale_closed", nil)
}

// OpensText is the sentence about the sale's opening and the random order at it, with
// the opening in the cinema's zone.
func (p QueuePageProps) OpensText(l Lang) string {
	return l.T("queue.opens_at", D{"Time": l.DayTime(p.Show.SaleOpensAt, p.Zone)})
}

// Opened reports whether the show's sale has opened (before it, joining the queue gives
// a place in a random order at the opening).
func (p QueuePageProps) Opened() bool { return !p.Now.Before(p.Show.SaleOpensAt) }

// QueueProgress is how far the entry has come, 0..100: the share of its first position
// already admitted ahead of it.
func QueueProgress(e *QueueEntry) int {
	if e == nil || e.Status != RoomStatusWaiting || e.FirstPosition <= 0 || e.Position <= 0 {
		if e != nil && e.Status == RoomStatusAdmitted {
			return 100
		}
		return 0
	}
	done := e.FirstPosition - e.Position
	if done < 0 {
		done = 0
	}
	return done * 100 / e.FirstPosition
}

// QueueWait is an estimated wait as a range in l: seconds under a minute ("8–15
// seconds"), else whole minutes ("2–4 minutes", "about 3 minutes" when both ends
// round alike). static/js/queue.js formats the same way.
func (l Lang) QueueWait(w QueueEstimate) string {
	lo, hi := max(w.Low, 1), max(w.High, 1)
	if hi < 60 {
		return l.T("queue.wait_seconds", D{"Low": min(lo, hi), "High": hi})
	}
	loM, hiM := max((lo+30)/60, 1), (hi+59)/60
	if loM >= hiM {
		return l.N("queue.wait_about", hiM, nil)
	}
	return l.T("queue.wait_minutes", D{"Low": loM, "High": hiM})
}

// QueueScriptText is the sentences static/js/queue.js writes, in l, as JSON for the
// waiting page's data-queue-text attribute; the script fills {n}, {low} and {high}, and
// picks a count's _one or _other form.
func QueueScriptText(l Lang) string {
	m := map[string]string{
		"position":     l.T("queue.position", D{"Position": "{n}"}),
		"wait_seconds": l.T("queue.wait_seconds", D{"Low": "{low}", "High": "{high}"}),
		"wait_minutes": l.T("queue.wait_minutes", D{"Low": "{low}", "High": "{high}"}),
		"admitted":     l.T("queue.admitted", nil),
	}
	for _, c := range []struct {
		key, id string
	}{{"waiting", "queue.waiting"}, {"wait_about", "queue.wait_about"}} {
		m[c.key+"_one"] = l.N(c.id, 1, D{"Count": "{n}"})
		m[c.key+"_other"] = l.N(c.id, 2, D{"Count": "{n}"})
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "{}"
	}
	return string(b)
}
