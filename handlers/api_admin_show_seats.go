package handlers

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/staff"
)

// staffSeatJSON is one seat of the staff seat map. state is what buyers see now (free,
// held, sold, blocked, house) from the seat cache; order_no, order_status and
// buyer_email name the order holding or owning the seat (null for none);
// database_state and database_order_no are the seat as MySQL records it, mismatch a
// sentence when the two disagree (else null). stuck: a hold without a live order that
// release frees; cancellable: a pending order's hold that release ends by cancelling it.
type staffSeatJSON struct {
	ID              string  `json:"id"`
	Label           string  `json:"label"`
	Row             int     `json:"row"`
	Col             int     `json:"col"`
	Zone            string  `json:"zone"`
	Kind            string  `json:"kind"`
	State           string  `json:"state"`
	OrderNo         *string `json:"order_no"`
	OrderStatus     *string `json:"order_status"`
	BuyerEmail      *string `json:"buyer_email"`
	DatabaseState   string  `json:"database_state"`
	DatabaseOrderNo *string `json:"database_order_no"`
	Mismatch        *string `json:"mismatch"`
	Stuck           bool    `json:"stuck"`
	Cancellable     bool    `json:"cancellable"`
}

// apiStaffSeatMap -> 200 {"show_id","status","editable","counts":{state: n},"seats":[...]}
// in hall order. Errors: 404 unknown show, 503.
func (d *Deps) apiStaffSeatMap(c *fiber.Ctx) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "show not found"}
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	m, err := d.ShowSeats.Map(ctx, showID)
	if err != nil {
		return err
	}
	seats := make([]staffSeatJSON, len(m.Seats))
	for i, s := range m.Seats {
		seats[i] = staffSeatJSON{ID: id(s.ID), Label: s.Label, Row: s.Row, Col: s.Col, Zone: s.ZoneCode, Kind: s.Kind,
			State: s.State, OrderNo: optString(s.OrderNo), OrderStatus: optString(s.OrderStatus),
			BuyerEmail: optString(s.BuyerEmail), DatabaseState: s.DBState, DatabaseOrderNo: optString(s.DBOrderNo),
			Mismatch: optString(s.Mismatch), Stuck: s.Stuck, Cancellable: s.Cancellable}
	}
	return c.JSON(fiber.Map{"show_id": id(m.Show.ID), "status": m.Show.Status, "editable": m.Editable,
		"counts": m.Counts, "seats": seats})
}

// apiHouseSeats blocks (block true) or unblocks house seats: {"seat_ids":["12"],
// "reason":"..."} (reason optional) -> 200 {"show_id","blocked":[labels]} or
// {"show_id","unblocked":[labels],"freed_now":N}. All or nothing. Errors: 400 bad body,
// 404 unknown show, 409 SEAT_TAKEN (seats not free, named in "seats") or CONFLICT (already
// or not house seats; show cancelled or started), 422 SEAT_NOT_IN_SHOW, 503.
func (d *Deps) apiHouseSeats(block bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		showID, ok := idParam(c, "id")
		if !ok {
			return &services.Error{Code: services.CodeNotFound, Message: "show not found"}
		}
		in, err := parseHouseBody(c.Body())
		if err != nil {
			return err
		}
		ctx, cancel := ctxOf(c)
		defer cancel()
		if block {
			res, err := d.ShowSeats.Block(ctx, currentUser(c).ID, showID, in.ids, in.reason)
			if err != nil {
				return err
			}
			return c.JSON(fiber.Map{"show_id": id(showID), "blocked": res.Seats})
		}
		res, err := d.ShowSeats.Unblock(ctx, currentUser(c).ID, showID, in.ids, in.reason)
		if err != nil {
			return err
		}
		return c.JSON(fiber.Map{"show_id": id(showID), "unblocked": res.Seats, "freed_now": res.Freed})
	}
}

// apiReleaseSeat releases a held seat: {"order_no":"...","reason":"..."} (both required;
// order_no is the owner the seat map showed) -> 200 {"action":"order_cancelled"|
// "hold_released","order_no","seats":[labels freed]}. Errors: 400 bad body or no reason,
// 404 unknown show or seat, 409 CONFLICT (not held by order_no now, order in flight,
// another live order) or ORDER_STATE (sold to a paid order), 503.
func (d *Deps) apiReleaseSeat(c *fiber.Ctx) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "show not found"}
	}
	seatID, ok := idParam(c, "seat_id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "seat not found"}
	}
	var in struct {
		OrderNo *string `json:"order_no"`
		Reason  *string `json:"reason"`
	}
	if err := decodeObject(c.Body(), &in, `{"order_no":"...","reason":"..."}`); err != nil {
		return err
	}
	if in.OrderNo == nil || in.Reason == nil {
		return invalid(`order_no and reason are required: {"order_no":"...","reason":"..."}`)
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	res, err := d.ShowSeats.Release(ctx, currentUser(c).ID, showID, seatID, *in.OrderNo, *in.Reason)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"action": res.Action, "order_no": res.OrderNo, "seats": res.Seats})
}

// houseBody is a parsed house-seats body.
type houseBody struct {
	ids    []int64
	reason string
}

// parseHouseBody reads {"seat_ids":["12",...],"reason":"..."}: seat ids are strings of
// digits (API.md: ids are JSON strings), at least one; reason is optional.
func parseHouseBody(body []byte) (houseBody, error) {
	const shape = `{"seat_ids":["12","13"],"reason":"..."}`
	var in struct {
		SeatIDs []string `json:"seat_ids"`
		Reason  *string  `json:"reason"`
	}
	if err := decodeObject(body, &in, shape); err != nil {
		return houseBody{}, err
	}
	if len(in.SeatIDs) == 0 {
		return houseBody{}, invalid("seat_ids must list at least one seat id: %s", shape)
	}
	if len(in.SeatIDs) > staff.MaxHouseSeatsPerRequest {
		return houseBody{}, invalid("at most %d seats at a time", staff.MaxHouseSeatsPerRequest)
	}
	out := houseBody{ids: make([]int64, 0, len(in.SeatIDs))}
	for _, s := range in.SeatIDs {
		n, ok := parseID(s) // the same rule: a positive decimal id
		if !ok {
			return houseBody{}, invalid("seat id %q is not a seat id such as \"12\"", s)
		}
		out.ids = append(out.ids, n)
	}
	if in.Reason != nil {
		out.reason = strings.TrimSpace(*in.Reason)
	}
	return out, nil
}
