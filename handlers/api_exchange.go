package handlers

import (
	"encoding/json"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/services/orders"
)

// apiExchange moves the signed-in buyer's order onto other seats: {"seat_ids":["12",...]}
// (as many seats as the order has, in the same zones) -> 200 the order on its new seats
// (API.md "Exchange"). Errors: 400 INVALID_REQUEST, 404 NOT_FOUND, 409 ORDER_STATE,
// 409 SEAT_TAKEN (with seats), 422 SEAT_NOT_IN_SHOW, SINGLE_SEAT_GAP, 503 UNAVAILABLE.
func (d *Deps) apiExchange(c *fiber.Ctx) error {
	ids, err := parseExchangeBody(c.Body())
	if err != nil {
		return err
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	o, err := d.Orders.Exchange(ctx, orders.ExchangeRequest{UserID: currentUser(c).ID,
		OrderNo: utils.CopyString(c.Params("no")), SeatIDs: ids})
	if err != nil {
		return err
	}
	return c.JSON(d.buyerOrderOut(o))
}

// parseExchangeBody reads {"seat_ids":[...]}: seat ids as decimal strings (as create
// takes them), 1..MaxSeatsPerRequest, each once. Errors: INVALID_REQUEST.
func parseExchangeBody(body []byte) ([]int64, error) {
	const shape = `{"seat_ids":["101","102"]}`
	var b struct {
		SeatIDs json.RawMessage `json:"seat_ids"`
	}
	if err := unmarshalOne(body, &b, shape); err != nil {
		return nil, err
	}
	if !isSet(b.SeatIDs) {
		return nil, invalid("seat_ids must list the seats to move to: %s", shape)
	}
	var raw []string
	if err := json.Unmarshal(b.SeatIDs, &raw); err != nil {
		return nil, invalid("seat_ids must be a list of seat id strings: %s", shape)
	}
	return seatIDList(b.SeatIDs, "list the seats to move to", "at most %d seats per order")
}
