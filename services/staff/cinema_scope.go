package staff

import (
	"context"
	"strconv"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/store"
)

// CinemaScopes answers the two questions of staff limited to cinemas (DESIGN.md "Staff
// limited to cinemas"): which cinemas a signed-in user works for, and which cinema a
// hall, show, order or ticket belongs to.
type CinemaScopes struct {
	db   *sqlx.DB
	door *Door
}

// NewCinemaScopes returns the scope service; door reads ticket references.
func NewCinemaScopes(db *sqlx.DB, door *Door) *CinemaScopes {
	return &CinemaScopes{db: db, door: door}
}

// ScopeOf returns the cinemas u works for: its rows of staff_cinemas for staff (none:
// every cinema); every cinema for admins and customers (customers never reach a staff
// route). Errors: UNAVAILABLE.
func (s *CinemaScopes) ScopeOf(ctx context.Context, u *services.User) (services.CinemaScope, error) {
	if u == nil || u.Role != services.RoleStaff {
		return services.CinemaScope{}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	ids, err := store.StaffCinemaIDs(ctx, s.db, u.ID)
	if err != nil {
		return services.CinemaScope{}, store.Unavailable("the database", err)
	}
	return services.CinemaScope{IDs: ids}, nil
}

// Kinds of object CinemaOf resolves, named as the staff routes' path segments.
const (
	ScopeHall    = "halls"
	ScopeShow    = "shows"
	ScopeOrder   = "orders"
	ScopeTicket  = "tickets"
	ScopeVoucher = "vouchers"
)

// CinemaOf returns the cinema of the object of kind (ScopeHall, ScopeShow: key is its
// id; ScopeOrder: its order number; ScopeTicket: a ticket reference or short code;
// ScopeVoucher: its code in any case) and
// true, or false when there is no such object (the route answers its own NOT_FOUND) or
// kind is none of these. Errors: UNAVAILABLE.
func (s *CinemaScopes) CinemaOf(ctx context.Context, kind, key string) (int64, bool, error) {
	if kind == ScopeTicket {
		t, err := s.door.Check(ctx, key)
		if services.ErrorCode(err) == services.CodeNotFound {
			return 0, false, nil
		}
		if err != nil {
			return 0, false, err
		}
		kind, key = ScopeShow, strconv.FormatInt(t.Order.ShowID, 10)
	}
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	var id int64
	var err error
	switch kind {
	case ScopeHall, ScopeShow:
		n, perr := strconv.ParseInt(key, 10, 64)
		if perr != nil || n <= 0 || strconv.FormatInt(n, 10) != key {
			return 0, false, nil // one spelling per id: "+7" and "07" name nothing
		}
		if kind == ScopeHall {
			id, err = store.CinemaIDOfHall(ctx, s.db, n)
		} else {
			id, err = store.CinemaIDOfShow(ctx, s.db, n)
		}
	case ScopeOrder:
		id, err = store.CinemaIDOfOrderNo(ctx, s.db, key)
	case ScopeVoucher:
		code, ok := services.CanonicalVoucherCode(key)
		if !ok {
			return 0, false, nil
		}
		id, err = store.CinemaIDOfVoucher(ctx, s.db, code)
	default:
		return 0, false, nil
	}
	if store.IsNoRows(err) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, store.Unavailable("the database", err)
	}
	return id, true, nil
}
