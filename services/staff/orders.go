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
	shows    *seats.Listing
	audit    *audit.Audit
}

// NewStaffOrders wires the staff order service.
func NewStaffOrders(db *sqlx.DB, orders *orders.Orders, payments *orders.Payments, shows *seats.Listing, audit *audit.Audit) *StaffOrders {
	return &StaffOrders{db: db, orders: orders, payments: payments, shows: shows, audit: audit}
}

// Search limits (GET /api/v1/admin/orders ?limit=).
const (
	DefaultOrderSearchLimit = 50
	MaxOrderSearchLimit     = 500
)

// OrderSearch filters a staff order search; zero values do not filter. OrderNo is
// matched as services.SearchableOrderNo folds it (full-width digits and letters are
// their ASCII selves; any other text matches nothing). Email matches the account's
// canonical email (CanonicalEmail: any case or width of the same address). Limit is
// 1..MaxOrderSearchLimit, 0 meaning the default.
type OrderSearch struct {
	OrderNo string
	ShowID  int64
	Status  string
	Email   string
	Limit   int
}

// StaffOrder is an order as its buyer sees it, with the buyer's account.
type StaffOrder = store.StaffOrder

var orderStatuses = map[string]bool{services.OrderPending: true, services.OrderPaid: true, services.OrderCancelled: true, services.OrderExpired: true, services.OrderRefunded: true}

// Search returns the orders matching f of the shows of the cinemas in ctx's scope
// (services.CinemaScopeOf), newest first, with their seats and buyers (an
// empty list when f.OrderNo cannot be an order number). A pending order past its
// deadline is expired first, as the buyer's own view does. A show id of another cinema
// than the scope's is FORBIDDEN, as reading that show is; an unknown one matches nothing.
// Errors: INVALID_REQUEST (unknown status, bad show id or limit), FORBIDDEN, UNAVAILABLE.
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
	scope := services.CinemaScopeOf(ctx)
	if err := s.checkShowScope(ctx, scope, f.ShowID); err != nil {
		return nil, err
	}
	sf := store.StaffOrderFilter{ShowID: f.ShowID, Status: f.Status, Limit: f.Limit, CinemaIDs: scope.IDs}
	if f.OrderNo != "" {
		no, ok := services.SearchableOrderNo(f.OrderNo)
		if !ok {
			return []*StaffOrder{}, nil // no order has such a number
		}
		sf.OrderNo = no
	}
	if strings.TrimSpace(f.Email) != "" {
		email, err := services.CanonicalEmail(f.Email) // the form accounts are stored in
		if err != nil {
			return nil, err
		}
		sf.Email = email
	}
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	rows, err := store.StaffOrderSearch(qctx, s.db, sf)
	if err != nil {
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
	Refunds  []RefundInfo
}

// RefundInfo is one refund of an order as staff see it: the money (minor units of
// Currency), when (UTC), who gave it (ActorEmail; "" for the buyer's own cancellation
// or the system), the reason and the labels of the seats it gave back.
type RefundInfo struct {
	RefundID    string
	AmountMinor int64
	Currency    string
	At          time.Time
	ActorEmail  string
	Reason      string
	Seats       []string
}

// Detail returns the order orderNo with its buyer, payments, refunds and audit history; a
// pending order past its deadline is expired first, as Search does.
// Errors: NOT_FOUND, UNAVAILABLE.
func (s *StaffOrders) Detail(ctx context.Context, orderNo string) (*OrderDetail, error) {
	if _, ok := services.SearchableOrderNo(orderNo); !ok {
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
	pays, err := store.StaffOrderPayments(qctx, s.db, d.ID)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	for _, p := range pays {
		p.OrderNo = d.OrderNo
		d.Payments = append(d.Payments, &OrderPayment{Payment: p.Payment, UpdatedAt: p.UpdatedAt})
	}
	refunds, err := store.RefundSummariesOf(qctx, s.db, d.ID)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	for _, r := range refunds {
		info := RefundInfo{RefundID: r.RefundID, AmountMinor: r.AmountMinor, Currency: r.Currency, At: r.CreatedAt,
			ActorEmail: r.ActorEmail, Reason: r.Reason}
		if r.Seats != "" {
			info.Seats = strings.Split(r.Seats, ", ")
		}
		d.Refunds = append(d.Refunds, info)
	}
	if d.History, err = s.audit.List(ctx, audit.AuditFilter{Entity: "order", EntityID: d.OrderNo, Limit: 500}); err != nil {
		return nil, err
	}
	return d, nil
}

// checkShowScope returns FORBIDDEN when showID (0: none) is a show of a cinema outside
// scope; a show that does not exist passes. Errors: FORBIDDEN, UNAVAILABLE.
func (s *StaffOrders) checkShowScope(ctx context.Context, scope services.CinemaScope, showID int64) error {
	if showID == 0 || scope.All() {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	cinemaID, err := store.CinemaIDOfShow(ctx, s.db, showID)
	if store.IsNoRows(err) {
		return nil
	}
	if err != nil {
		return store.Unavailable("the database", err)
	}
	return scope.Check(cinemaID)
}
