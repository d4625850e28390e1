package views

import (
	"time"

	"seatflow/services"
)

// StaffOrder is an order as staff see it: the order and its buyer's email ("" for a
// walk-in), and the counter seller's (SoldByEmail, "" online).
type StaffOrder struct {
	*services.Order
	UserEmail   string
	SoldByEmail string
}

// OrderPayment is one payment of an order for staff, with when it last changed.
type OrderPayment struct {
	Payment
	UpdatedAt time.Time
}

// OrderDetail is one order for staff: the order with its buyer, its payments (oldest
// first) and its audit entries (newest first).
type OrderDetail struct {
	*StaffOrder
	Payments []*OrderPayment
	History  []*AuditEntry
	Refunds  []RefundItem
}

// RefundItem is one refund of an order for staff: the money (minor units of Currency),
// when (UTC), who gave it ("" for the buyer's own cancellation), why, and its seats.
type RefundItem struct {
	AmountMinor int64
	Currency    string
	At          time.Time
	Who         string
	Reason      string
	Seats       []string
}
