package staff

import (
	"context"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/orders"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// StaffOrders is what staff and admins do with orders: search every buyer's orders,
// refund a paid order, cancel a show with all its orders. Every write is audited in
// its own transaction (invariant 11).
type StaffOrders struct {
	db       *sqlx.DB
	orders   *orders.Orders
	payments *orders.Payments
	shows    *seats.Shows
	audit    *audit.Audit
}

// NewStaffOrders wires the staff order service.
func NewStaffOrders(db *sqlx.DB, orders *orders.Orders, payments *orders.Payments, shows *seats.Shows, audit *audit.Audit) *StaffOrders {
	return &StaffOrders{db: db, orders: orders, payments: payments, shows: shows, audit: audit}
}

// Search limits (GET /api/v1/admin/orders ?limit=).
const (
	DefaultOrderSearchLimit = 50
	MaxOrderSearchLimit     = 200
)

// OrderSearch filters a staff order search; zero values do not filter. Email matches
// the account's canonical email (CanonicalEmail: any case or width of the same address). Limit is 1..MaxOrderSearchLimit, 0 meaning the default.
type OrderSearch struct {
	OrderNo string
	ShowID  int64
	Status  string
	Email   string
	Limit   int
}

// StaffOrder is an order as its buyer sees it, with the buyer's account.
type StaffOrder struct {
	*services.Order
	UserEmail string `db:"user_email"`
}

var orderStatuses = map[string]bool{services.OrderPending: true, services.OrderPaid: true, services.OrderCancelled: true, services.OrderExpired: true, services.OrderRefunded: true}

// Search returns the orders matching f, newest first, with their seats and buyers. A
// pending order past its deadline is expired first, as the buyer's own view does.
// Errors: INVALID_REQUEST (unknown status, bad show id or limit), UNAVAILABLE.
func (s *StaffOrders) Search(ctx context.Context, f OrderSearch) ([]*StaffOrder, error) {
	switch {
	case f.Status != "" && !orderStatuses[f.Status]:
		return nil, services.Errorf(services.CodeInvalidRequest, "status must be one of pending, paid, cancelled, expired, refunded")
	case f.ShowID < 0:
		return nil, services.Errorf(services.CodeInvalidRequest, "show_id must be a positive integer")
	case f.Limit < 0 || f.Limit > MaxOrderSearchLimit:
		return nil, services.Errorf(services.CodeInvalidRequest, "limit must be a whole number from 1 to %d", MaxOrderSearchLimit)
	}
	if f.Limit == 0 {
		f.Limit = DefaultOrderSearchLimit
	}
	q := `SELECT o.id, o.order_no, o.user_id, o.show_id, o.status, o.total_minor, o.currency, o.created_at, o.expires_at,
		o.paid_at, o.cancelled_at, o.cancel_reason, u.email AS user_email
		FROM orders o JOIN users u ON u.id = o.user_id WHERE 1 = 1`
	var args []any
	if f.OrderNo != "" {
		if len(f.OrderNo) > 32 {
			return []*StaffOrder{}, nil
		}
		q += " AND o.order_no = ?"
		args = append(args, f.OrderNo)
	}
	if f.ShowID > 0 {
		q += " AND o.show_id = ?"
		args = append(args, f.ShowID)
	}
	if f.Status != "" {
		q += " AND o.status = ?"
		args = append(args, f.Status)
	}
	if strings.TrimSpace(f.Email) != "" {
		email, err := services.CanonicalEmail(f.Email) // the form accounts are stored in
		if err != nil {
			return nil, err
		}
		q += " AND u.email = ?"
		args = append(args, email)
	}
	q += " ORDER BY o.created_at DESC, o.id DESC LIMIT ?"
	args = append(args, f.Limit)
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	var rows []*StaffOrder
	if err := s.db.SelectContext(qctx, &rows, q, args...); err != nil {
		return nil, store.Unavailable("the database", err)
	}
	now := s.orders.Clock().Now()
	out := make([]*StaffOrder, 0, len(rows))
	orders := make([]*services.Order, 0, len(rows))
	for _, r := range rows {
		if r.Status == services.OrderPending && !now.Before(r.ExpiresAt) {
			if _, err := s.orders.Expire(ctx, r.OrderNo); err != nil {
				return nil, err
			}
			fresh, err := s.orders.ByNo(ctx, r.OrderNo)
			if err != nil {
				return nil, err
			}
			if f.Status != "" && fresh.Status != f.Status {
				continue
			}
			r.Order = fresh
		}
		out = append(out, r)
		orders = append(orders, r.Order)
	}
	if err := s.orders.AttachSeats(qctx, orders); err != nil {
		return nil, err
	}
	return out, nil
}

// OrderPayment is a payment of an order as staff see it: UpdatedAt (UTC) is when its
// status last changed (approved, declined or refunded).
type OrderPayment struct {
	orders.Payment
	UpdatedAt time.Time `db:"updated_at"`
}

// OrderDetail is one order for staff: the order with its buyer, its payments (oldest
// first) and its audit entries (entity "order", the order number; newest first).
type OrderDetail struct {
	*StaffOrder
	Payments []*OrderPayment
	History  []*audit.AuditEntry
}

// Detail returns the order orderNo with its buyer, payments and audit history; a
// pending order past its deadline is expired first, as Search does.
// Errors: NOT_FOUND, UNAVAILABLE.
func (s *StaffOrders) Detail(ctx context.Context, orderNo string) (*OrderDetail, error) {
	if orderNo == "" || len(orderNo) > 32 {
		return nil, services.Errorf(services.CodeNotFound, "order not found")
	}
	found, err := s.Search(ctx, OrderSearch{OrderNo: orderNo, Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(found) == 0 {
		return nil, services.Errorf(services.CodeNotFound, "order not found")
	}
	d := &OrderDetail{StaffOrder: found[0], Payments: []*OrderPayment{}}
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	if err := s.db.SelectContext(qctx, &d.Payments, `SELECT id, payment_id, order_id, provider, amount_minor, currency, status,
		created_at, updated_at FROM payments WHERE order_id = ? ORDER BY id`, d.ID); err != nil {
		return nil, store.Unavailable("the database", err)
	}
	for _, p := range d.Payments {
		p.OrderNo = d.OrderNo
	}
	if d.History, err = s.audit.List(ctx, audit.AuditFilter{Entity: "order", EntityID: d.OrderNo, Limit: 500}); err != nil {
		return nil, err
	}
	return d, nil
}
