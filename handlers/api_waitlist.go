package handlers

import (
	"context"
	"encoding/json"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/waitlist"
)

// The waiting list of a sold-out show (API.md "Seat rules and the waiting list"): join,
// read, leave; staff read the whole list.

// WaitlistService is what the handlers need of waitlist.Lists.
type WaitlistService interface {
	Join(ctx context.Context, userID, showID int64, quantity int, zone, admissionToken string) (*waitlist.Entry, error)
	Mine(ctx context.Context, userID, showID int64) (*waitlist.Entry, error)
	Leave(ctx context.Context, userID, showID int64) (*waitlist.Entry, error)
	List(ctx context.Context, showID int64) ([]*waitlist.Entry, error)
}

// waitlistJSON is a place as API.md gives it: position while waiting (null otherwise),
// the offer's order number and deadline once offered.
type waitlistJSON struct {
	EntryID        string  `json:"entry_id"`
	ShowID         string  `json:"show_id"`
	Status         string  `json:"status"`
	Position       *int    `json:"position"`
	Quantity       int     `json:"quantity"`
	Zone           *string `json:"zone"`
	OrderNo        string  `json:"order_no,omitempty"`
	OfferExpiresAt string  `json:"offer_expires_at,omitempty"`
	JoinedAt       string  `json:"joined_at"`
	// Email is the buyer's, in the staff list only.
	Email string `json:"email,omitempty"`
}

func waitlistOut(e *waitlist.Entry, staff bool) waitlistJSON {
	out := waitlistJSON{EntryID: id(e.ID), ShowID: id(e.ShowID), Status: e.Status, Quantity: e.Quantity,
		Zone: optString(e.Zone), OrderNo: e.OrderNo, JoinedAt: rfc(e.CreatedAt)}
	if e.Position > 0 {
		p := e.Position
		out.Position = &p
	}
	if e.OfferExpiresAt != nil && e.OrderNo != "" {
		out.OfferExpiresAt = rfc(*e.OfferExpiresAt)
	}
	if staff {
		out.Email = e.UserEmail
	}
	return out
}

// waitlistBody is the body of POST /shows/{id}/waitlist.
type waitlistBody struct {
	Quantity json.RawMessage `json:"quantity"`
	Zone     json.RawMessage `json:"zone"`
}

// apiJoinWaitlist puts the signed-in buyer on the show's waiting list -> 201 the place.
// While the show's waiting room is on, the buyer's admission (header Admission-Token or
// the room's cookie) is checked as an order's is. Errors: INVALID_REQUEST, NOT_FOUND,
// NOT_ON_SALE, NOT_ADMITTED (403: join the waiting room first), CONFLICT (already on it;
// seats are free to book).
func (d *Deps) apiJoinWaitlist(c *fiber.Ctx) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "show not found"}
	}
	var in waitlistBody
	if err := decodeObject(c.Body(), &in, `{"quantity":2,"zone":"standard"}`); err != nil {
		return err
	}
	if !isSet(in.Quantity) {
		return invalid("quantity is required: how many seats side by side you want")
	}
	q, err := jsonInt(in.Quantity)
	if err != nil || q < 1 || q > 100 {
		return invalid("quantity must be a whole number from 1 to the show's purchase limit")
	}
	zone := ""
	if isSet(in.Zone) {
		if json.Unmarshal(in.Zone, &zone) != nil || zone == "" {
			return invalid("zone must be a zone code such as \"standard\", or left out for any zone")
		}
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	e, err := d.Waitlist.Join(ctx, currentUser(c).ID, showID, int(q), zone, admissionToken(c, showID))
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(waitlistOut(e, false))
}

// apiWaitlist is the signed-in buyer's place on the show's list -> 200; 404 NOT_FOUND
// when they never joined.
func (d *Deps) apiWaitlist(c *fiber.Ctx) error {
	return d.waitlistAnswer(c, d.Waitlist.Mine)
}

// apiLeaveWaitlist takes the signed-in buyer off the show's list -> 200 the place (left;
// a pending offer is cancelled with it); 404 NOT_FOUND without an open place.
func (d *Deps) apiLeaveWaitlist(c *fiber.Ctx) error {
	return d.waitlistAnswer(c, d.Waitlist.Leave)
}

func (d *Deps) waitlistAnswer(c *fiber.Ctx, op func(ctx context.Context, userID, showID int64) (*waitlist.Entry, error)) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "show not found"}
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	e, err := op(ctx, currentUser(c).ID, showID)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(waitlistOut(e, false))
}

// apiAdminWaitlist is a show's whole waiting list for staff, in order -> 200
// {"entries": [...]} with each buyer's e-mail.
func (d *Deps) apiAdminWaitlist(c *fiber.Ctx) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "show not found"}
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	list, err := d.Waitlist.List(ctx, showID)
	if err != nil {
		return err
	}
	out := struct {
		Entries []waitlistJSON `json:"entries"`
	}{Entries: make([]waitlistJSON, len(list))}
	for i, e := range list {
		out.Entries[i] = waitlistOut(e, true)
	}
	return c.JSON(out)
}
