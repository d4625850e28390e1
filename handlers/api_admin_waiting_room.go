package handlers

import (
	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/waitingroom"
)

// waitingRoomJSON is a show's waiting room as staff read it.
type waitingRoomJSON struct {
	ShowID          string `json:"show_id"`
	WaitingRoom     bool   `json:"waiting_room"`
	AdmitPerMinute  int    `json:"admit_per_minute"`
	Waiting         int    `json:"waiting"`
	AdmittedLastMin int    `json:"admitted_last_minute"`
	AdmittedTotal   int    `json:"admitted_total"`
	AbandonedTotal  int    `json:"abandoned_total"`
	Closed          bool   `json:"closed"`
	ClosedReason    string `json:"closed_reason,omitempty"`
}

func waitingRoomOut(showID int64, s *waitingroom.Stats) waitingRoomJSON {
	return waitingRoomJSON{ShowID: id(showID), WaitingRoom: s.On, AdmitPerMinute: s.Pace, Waiting: s.Waiting,
		AdmittedLastMin: s.AdmittedLastMin, AdmittedTotal: s.AdmittedTotal, AbandonedTotal: s.AbandonedTotal,
		Closed: s.Closed != "", ClosedReason: s.Closed}
}

// apiAdminWaitingRoom is a show's waiting room for staff -> 200 {"show_id",
// "waiting_room", "admit_per_minute", "waiting", "admitted_last_minute",
// "admitted_total", "abandoned_total", "closed", "closed_reason"}; 404 NOT_FOUND.
// Staff turn the room on or off and set its pace with PATCH /api/v1/admin/shows/{id}.
func (d *Deps) apiAdminWaitingRoom(c *fiber.Ctx) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "show not found"}
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	s, err := d.Rooms.Stats(ctx, showID)
	if err != nil {
		return err
	}
	return c.JSON(waitingRoomOut(showID, s))
}
