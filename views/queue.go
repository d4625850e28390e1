package views

import (
	"time"

	"seatflow/services"
	"seatflow/services/waitingroom"
)

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
	Entry *waitingroom.Entry
	Now   time.Time
	Zone  *time.Location
}

// QueueProgress is how far the entry has come, 0..100: the share of its first position
// already admitted ahead of it.
func QueueProgress(e *waitingroom.Entry) int {
	if e == nil || e.Status != waitingroom.StatusWaiting || e.FirstPosition <= 0 || e.Position <= 0 {
		if e != nil && e.Status == waitingroom.StatusAdmitted {
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
