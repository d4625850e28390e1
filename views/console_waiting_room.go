package views

import "time"

// RoomStats are a show's waiting room figures: On, its Pace (buyers a minute), how many
// wait, the admissions measured in the last minute, the admitted and abandoned totals,
// and why it closed (RoomClosed* constants, or "").
type RoomStats struct {
	On              bool
	Pace            int
	Waiting         int
	AdmittedLastMin int
	AdmittedTotal   int
	AbandonedTotal  int
	Closed          string
}

// WaitingRoomForm is what a show's waiting room form holds, as typed: the room on or
// off and its pace in buyers a minute.
type WaitingRoomForm struct {
	On   bool
	Pace string
}

// WaitingRoomFigures are a show's waiting room as the console shows it, read at Now:
// Stats is nil with Error saying why when the room could not be read. Poll makes the
// figures refresh themselves (htmx) every WaitingRoomPollEvery.
type WaitingRoomFigures struct {
	ShowID int64
	Stats  *RoomStats
	Error  string
	Now    time.Time
	Zone   *time.Location
	Poll   bool
}

// WaitingRoomFiguresID is the id of the element that holds a room's figures (and that
// an htmx refresh replaces).
const WaitingRoomFiguresID = "waiting-room-figures"

// WaitingRoomPart is the value of ?part= that asks a show's console page for its
// waiting room figures only.
const WaitingRoomPart = "waiting-room"

// WaitingRoomPollEvery is how often the figures refresh themselves, as an htmx trigger.
const WaitingRoomPollEvery = "every 5s"

// WaitingRoomURL is where a show's waiting room form posts.
func WaitingRoomURL(id int64) string { return AdminShowURL(id) + "/waiting-room" }

// WaitingRoomFiguresURL is a show's waiting room figures alone, for the refresh.
func WaitingRoomFiguresURL(id int64) string { return AdminShowURL(id) + "?part=" + WaitingRoomPart }

// Thousands formats a whole number with a comma every three digits: "12,500".
func Thousands(n int) string {
	if n < 0 {
		return "-" + group(uint64(-n))
	}
	return group(uint64(n))
}

// RoomPace formats a waiting room's pace: "1 buyer a minute", "1,200 buyers a minute".
func RoomPace(n int) string {
	if n == 1 {
		return "1 buyer a minute"
	}
	return Thousands(n) + " buyers a minute"
}

// RoomState is a waiting room on or off as a badge.
func RoomState(on bool) StatusView {
	if on {
		return StatusView{"on", "badge-on-sale"}
	}
	return StatusView{"off", "badge-closed"}
}

// RoomClosed says whether a room is closed and why (RoomClosed*): "No",
// "Yes: sold out", "Yes: the sale closed", "Yes: the show was cancelled".
func RoomClosed(reason string) string {
	switch reason {
	case "":
		return "No"
	case RoomClosedSoldOut:
		return "Yes: sold out"
	case RoomClosedSale:
		return "Yes: the sale closed"
	case RoomClosedCancelled:
		return "Yes: the show was cancelled"
	}
	return "Yes: " + reason
}

// RoomNotice is what the show's page says after its waiting room was saved.
func RoomNotice(on bool, pace int) string {
	if on {
		return "The waiting room is on: it admits " + RoomPace(pace) + "."
	}
	return "The waiting room is off: every buyer may choose seats and order (the pace stays " + RoomPace(pace) + ")."
}
