package handlers

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/services"
	"seatflow/services/staff"
)

type userRefJSON struct {
	ID    string `json:"id"`
	Email string `json:"email"`
}

type staffOrderJSON struct {
	orderJSON
	// User is the buyer's account, null for a walk-in's counter sale.
	User *userRefJSON `json:"user"`
}

// userRef is the buyer's account reference, nil for a walk-in (services.WalkIn).
func userRef(userID int64, email string) *userRefJSON {
	if userID == services.WalkIn {
		return nil
	}
	return &userRefJSON{ID: id(userID), Email: email}
}

// apiAdminOrders searches every buyer's orders: ?order_no=&show_id=&status=&email=&limit=
// -> {"orders":[...]} newest first; an order_no no order can have (any text that is not
// printable ASCII once full-width characters are folded) matches nothing. Errors: 400
// for an unknown status or a bad show id or limit (empty ones included), 503.
func (d *Deps) apiAdminOrders(c *fiber.Ctx) error {
	if err := refuseBlankQuery(c, "show_id", "status", "limit"); err != nil {
		return err
	}
	f := staff.OrderSearch{
		OrderNo: utils.CopyString(c.Query("order_no")),
		Status:  utils.CopyString(c.Query("status")),
		Email:   utils.CopyString(c.Query("email")),
	}
	if q := c.Query("show_id"); q != "" {
		n, ok := parseID(q)
		if !ok {
			return invalid("show_id must be a show id such as 7")
		}
		f.ShowID = n
	}
	var err error
	if f.Limit, err = queryLimit(c, staff.DefaultOrderSearchLimit, staff.MaxOrderSearchLimit); err != nil {
		return err
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	orders, err := d.StaffOrders.Search(ctx, f)
	if err != nil {
		return err
	}
	out := make([]staffOrderJSON, len(orders))
	for i, o := range orders {
		out[i] = staffOrderJSON{orderJSON: orderOut(o.Order), User: userRef(o.UserID, o.UserEmail)}
	}
	return c.JSON(fiber.Map{"orders": out})
}

// apiAdminRefund refunds a paid order: {"reason","seat_ids"} (both optional; without
// seat_ids every seat left) -> 200 the order, refunded, or still paid with those seats
// refunded. Errors: 400 bad body or a seat not in the order (seats), 404 unknown order,
// 409 ORDER_STATE (not paid; a seat already refunded, seats), 503.
func (d *Deps) apiAdminRefund(c *fiber.Ctx) error {
	reason, seatIDs, err := parseRefund(c.Body())
	if err != nil {
		return err
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	o, err := d.StaffOrders.RefundSeats(ctx, currentUser(c).ID, utils.CopyString(c.Params("no")), reason, seatIDs)
	if err != nil {
		return err
	}
	return c.JSON(orderOut(o))
}

// apiAdminCancelShow cancels a show: {"reason"} (optional) -> 200 {"show":{...},
// "cancelled_orders":N,"refunded_orders":M}. Errors: 400 bad body, 404 unknown show, 503.
func (d *Deps) apiAdminCancelShow(c *fiber.Ctx) error {
	reason, err := parseReason(c.Body())
	if err != nil {
		return err
	}
	showID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "show not found"}
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	res, err := d.StaffOrders.CancelShow(ctx, currentUser(c).ID, showID, reason)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"show": d.showDetailOut(c, res.Show),
		"cancelled_orders": res.CancelledOrders, "refunded_orders": res.RefundedOrders})
}

// parseRefund reads a refund's optional body {"reason": "...", "seat_ids": ["101"]}: an
// empty body refunds the whole order without a reason; seat_ids, when present, is a
// list of 1..orders.MaxSeatsPerRequest seat id strings. Errors: INVALID_REQUEST.
func parseRefund(body []byte) (string, []int64, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return "", nil, nil
	}
	var in struct {
		Reason  *string         `json:"reason"`
		SeatIDs json.RawMessage `json:"seat_ids"`
	}
	if err := decodeObject(body, &in, `{"reason":"...","seat_ids":["101"]}`); err != nil {
		return "", nil, err
	}
	reason := ""
	if in.Reason != nil {
		reason = strings.TrimSpace(*in.Reason)
	}
	if !isSet(in.SeatIDs) {
		return reason, nil, nil
	}
	ids, err := seatIDList(in.SeatIDs, "leave it out to refund the whole order", "at most %d seats per refund")
	return reason, ids, err
}

// parseReason reads an optional body {"reason": "..."}; an empty body has no reason.
// Errors: INVALID_REQUEST (not one JSON object, reason not a string, unknown field).
func parseReason(body []byte) (string, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return "", nil
	}
	var in struct {
		Reason *string `json:"reason"`
	}
	if err := decodeObject(body, &in, `{"reason":"..."}`); err != nil {
		return "", err
	}
	if in.Reason == nil {
		return "", nil
	}
	return strings.TrimSpace(*in.Reason), nil
}
