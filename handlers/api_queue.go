package handlers

import (
	"bufio"
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"
	"github.com/valyala/fasthttp"

	"seatflow/services"
	"seatflow/services/waitingroom"
)

// The waiting room of a flash on-sale, as buyers use it (API.md "Waiting room"): join,
// read, and the event stream of their entry.

// AdmissionHeader carries an admission token on order creation; admissionCookie (per
// show) carries it for the browser.
const AdmissionHeader = "Admission-Token"

func admissionCookie(showID int64) string { return "sf_admit_" + strconv.FormatInt(showID, 10) }

// PlaceHeader carries a waiting buyer's place token (the answer's place_token) on a
// read of their entry; placeCookie (per show) carries it for the browser. With it, an
// instance answers a waiting buyer from its snapshot of the room (Rooms.ReadPlace).
const PlaceHeader = "Queue-Place"

func placeCookie(showID int64) string { return "sf_place_" + strconv.FormatInt(showID, 10) }

// placeToken is the request's place token for showID: the header, else the cookie.
func placeToken(c *fiber.Ctx, showID int64) string {
	if t := c.Get(PlaceHeader); t != "" {
		return utils.CopyString(t)
	}
	return utils.CopyString(c.Cookies(placeCookie(showID)))
}

// admissionToken is the request's admission token for showID: the header, else the
// browser's cookie.
func admissionToken(c *fiber.Ctx, showID int64) string {
	if t := c.Get(AdmissionHeader); t != "" {
		return utils.CopyString(t)
	}
	return utils.CopyString(c.Cookies(admissionCookie(showID)))
}

// queueJSON is an entry as API.md gives it; position and estimated_wait_s are null
// when not waiting with a position.
type queueJSON struct {
	QueueID            string  `json:"queue_id"`
	ShowID             string  `json:"show_id"`
	Status             string  `json:"status"`
	Position           *int    `json:"position"`
	FirstPosition      int     `json:"first_position,omitempty"`
	Waiting            int     `json:"waiting"`
	EstimatedWaitS     *int    `json:"estimated_wait_s"`
	EstimatedWaitRange []int   `json:"estimated_wait_range_s,omitempty"`
	AdmissionToken     string  `json:"admission_token,omitempty"`
	AdmissionExpiresAt *string `json:"admission_expires_at,omitempty"`
	ClosedReason       string  `json:"closed_reason,omitempty"`
	SaleOpened         bool    `json:"sale_opened"`
	PlaceToken         string  `json:"place_token,omitempty"`
}

func queueOut(showID int64, e *waitingroom.Entry) queueJSON {
	out := queueJSON{QueueID: e.QueueID, ShowID: id(showID), Status: e.Status, FirstPosition: e.FirstPosition,
		Waiting: e.Waiting, AdmissionToken: e.AdmissionToken, SaleOpened: e.Opened, PlaceToken: e.Place}
	if e.Position > 0 {
		p, w := e.Position, e.Wait.Seconds
		out.Position, out.EstimatedWaitS = &p, &w
		out.EstimatedWaitRange = []int{e.Wait.Low, e.Wait.High}
	}
	if e.Status == waitingroom.StatusAdmitted {
		t := rfc(e.AdmissionExpiresAt)
		out.AdmissionExpiresAt = &t
	}
	if e.Status == waitingroom.StatusClosed {
		out.ClosedReason = e.Closed
	}
	return out
}

// setAdmission gives the browser the admission as a cookie of the show (HttpOnly,
// until the token expires) when e is admitted, and its place while waiting (when the
// request did not carry that place already as a cookie; a client sending the
// Queue-Place header keeps place_token itself and gets no cookie).
func (d *Deps) setAdmission(c *fiber.Ctx, showID int64, e *waitingroom.Entry) {
	if e.Status == waitingroom.StatusWaiting && e.Place != "" && c.Get(PlaceHeader) == "" && c.Cookies(placeCookie(showID)) != e.Place {
		c.Cookie(&fiber.Cookie{Name: placeCookie(showID), Value: e.Place, Path: "/", MaxAge: 86400,
			HTTPOnly: true, Secure: d.SecureCookies, SameSite: fiber.CookieSameSiteLaxMode})
	}
	if e.Status != waitingroom.StatusAdmitted || e.AdmissionToken == "" {
		return
	}
	c.Cookie(&fiber.Cookie{Name: admissionCookie(showID), Value: e.AdmissionToken, Path: "/",
		Expires: e.AdmissionExpiresAt, HTTPOnly: true, Secure: d.SecureCookies, SameSite: fiber.CookieSameSiteLaxMode})
}

// apiJoinQueue puts the signed-in buyer in the show's waiting room -> 200 their entry
// (the same entry when they are in it); 409 ORDER_STATE when the show takes no queue.
func (d *Deps) apiJoinQueue(c *fiber.Ctx) error {
	return d.queueAnswer(c, d.Rooms.Join)
}

// apiQueue is the signed-in buyer's entry -> 200; 404 NOT_FOUND when not in the queue.
// A place token (header or cookie) lets a waiting buyer's read skip Redis.
func (d *Deps) apiQueue(c *fiber.Ctx) error {
	return d.queueAnswer(c, func(ctx context.Context, showID, userID int64) (*waitingroom.Entry, error) {
		return d.Rooms.ReadPlace(ctx, showID, userID, placeToken(c, showID))
	})
}

func (d *Deps) queueAnswer(c *fiber.Ctx, op func(ctx context.Context, showID, userID int64) (*waitingroom.Entry, error)) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "show not found"}
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	e, err := op(ctx, showID, currentUser(c).ID)
	if err != nil {
		return err
	}
	d.setAdmission(c, showID, e)
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(queueOut(showID, e))
}

// queueReadEvery is how often a queue event stream reads its entry without being told
// of a move (the read is also the entry's heartbeat; API.md: 120 s of silence expires
// a waiting place).
const queueReadEvery = 5 * time.Second

// apiQueueEvents streams the signed-in buyer's entry as Server-Sent Events ("entry",
// the JSON of GET .../queue) whenever it changes: at once, when the room moves (one
// subscription per process), and at least every queueReadEvery while the stream is
// open (which keeps the place); a waiting entry is read from this instance's snapshot
// of the room (Rooms.ReadPlace), so a stream costs Redis nothing of its own. It ends after admitted, expired or closed, or after
// LiveStreamFor (the browser reconnects). 404 NOT_FOUND when not in the queue.
func (d *Deps) apiQueueEvents(c *fiber.Ctx) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "show not found"}
	}
	userID := currentUser(c).ID
	ctx, cancel := ctxOf(c)
	first, err := d.Rooms.ReadPlace(ctx, showID, userID, placeToken(c, showID))
	cancel()
	if err != nil {
		return err
	}
	d.setAdmission(c, showID, first)
	c.Set(fiber.HeaderContentType, "text/event-stream; charset=utf-8")
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set("X-Accel-Buffering", "no")
	rooms, place := d.Rooms, first.Place
	moved, stop := func() (<-chan struct{}, func()) {
		if d.Moves == nil {
			return nil, func() {}
		}
		return d.Moves.Watch(showID)
	}()
	// the stream outlives the handler and its Fiber context: nothing below may touch c
	c.Context().SetBodyStreamWriter(fasthttp.StreamWriter(func(w *bufio.Writer) {
		defer stop()
		var last []byte
		send := func(e *waitingroom.Entry) bool {
			b, _ := json.Marshal(queueOut(showID, e))
			if string(b) == string(last) {
				return true
			}
			last = b
			w.WriteString("event: entry\ndata: ")
			w.Write(b)
			w.WriteString("\n\n")
			return w.Flush() == nil
		}
		done := func(e *waitingroom.Entry) bool { return e.Status != waitingroom.StatusWaiting }
		w.WriteString("retry: 2000\n")
		if !send(first) || done(first) {
			return
		}
		every := time.NewTicker(queueReadEvery)
		defer every.Stop()
		end := time.After(LiveStreamFor)
		for {
			select {
			case <-moved:
			case <-every.C:
			case <-end:
				return
			}
			rctx, rcancel := context.WithTimeout(context.Background(), requestTimeout)
			e, err := rooms.ReadPlace(rctx, showID, userID, place)
			rcancel()
			if err != nil {
				if _, werr := w.WriteString(": retrying\n\n"); werr != nil || w.Flush() != nil {
					return
				}
				continue
			}
			if e.Place != "" {
				place = e.Place
			}
			if !send(e) || done(e) {
				return
			}
		}
	}))
	return nil
}
