package handlers

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/orders"
)

// TestOrderJSON_Voucher: an order body's "voucher" reaches the request as typed (the
// service canonicalises it), a voucher that is not a string is refused, and an order
// with a voucher answers "voucher", "discount_minor" and each covered seat's discount
// beside its discounted price_minor; an order without one carries neither.
func TestOrderJSON_Voucher(t *testing.T) {
	var req orders.CreateOrderRequest
	if err := parseOrderBody([]byte(`{"seat_ids":["1"],"voucher":"summer-15"}`), &req); err != nil || req.Voucher != "summer-15" {
		t.Fatalf("voucher %q, %v", req.Voucher, err)
	}
	if err := parseOrderBody([]byte(`{"seat_ids":["1"],"voucher":15}`), &orders.CreateOrderRequest{}); services.ErrorCode(err) != services.CodeInvalidRequest {
		t.Fatalf("a number as the voucher: %v", err)
	}
	id, d := int64(7), int64(675)
	o := &services.Order{OrderNo: "N1", Status: services.OrderPending, ShowID: 3, TotalMinor: 3825 + 4500, Currency: "CNY",
		CreatedAt: time.Unix(0, 0), ExpiresAt: time.Unix(900, 0), VoucherID: &id, Voucher: "SUMMER-15", DiscountMinor: 675,
		Seats: []services.OrderSeat{{SeatID: 1, Label: "A1", ZoneCode: "standard", PriceMinor: 3825, DiscountMinor: &d},
			{SeatID: 2, Label: "A2", ZoneCode: "standard", TicketType: "child", PriceMinor: 4500}}}
	b, _ := json.Marshal(orderOut(o))
	for _, want := range []string{`"voucher":"SUMMER-15"`, `"discount_minor":675`, `"price_minor":3825,"discount_minor":675,"refunded":false}`, `"price_minor":4500,"refunded":false}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
	o.VoucherID, o.Voucher, o.DiscountMinor, o.Seats[0].DiscountMinor = nil, "", 0, nil
	if b, _ := json.Marshal(orderOut(o)); strings.Contains(string(b), "voucher") || strings.Contains(string(b), "discount") {
		t.Errorf("an order without a voucher: %s", b)
	}
}
