package staff

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/orders"
	"seatflow/services/store"
)

// Door admits ticket holders at the door: it checks a ticket reference (the text of a
// ticket's QR code) and marks the ticket admitted, at most once (DESIGN.md "a ticket is
// admitted at most once").
type Door struct {
	db      *sqlx.DB
	orders  *orders.Orders
	tickets *orders.Tickets
	audit   *audit.Audit
	zone    *time.Location
}

// NewDoor wires the door service; zone is the cinema's time zone (the times in its
// messages are local).
func NewDoor(db *sqlx.DB, orders *orders.Orders, tickets *orders.Tickets, audit *audit.Audit, zone *time.Location) *Door {
	if zone == nil {
		zone = time.UTC
	}
	return &Door{db: db, orders: orders, tickets: tickets, audit: audit, zone: zone}
}

// Ticket is a paid order's ticket as the door sees it: the order with its seats, the
// buyer's name, the show (title, start in UTC, stored status) and the admission (nil
// AdmittedAt until admitted; AdmittedBy is the staff user id, AdmittedByName their name).
type Ticket struct {
	Order          *services.Order
	BuyerName      string
	ShowTitle      string
	ShowStartsAt   time.Time
	ShowStatus     string
	AdmittedAt     *time.Time
	AdmittedBy     int64
	AdmittedByName string
}

// DoorScope is what a door admits: tickets of show ShowID when it is not 0, else of shows
// starting on Day (YYYY-MM-DD in the cinema's zone) when it is not "", else any show.
type DoorScope struct {
	ShowID int64
	Day    string
}

// errNoTicket answers a reference that is no ticket of this cinema.
var errNoTicket = &services.Error{Code: services.CodeNotFound, Message: "not a ticket of this cinema: the reference is malformed, forged or unknown"}

// Check reads the ticket of reference ref without admitting it: the signed reference of
// the QR code, or the ticket's short code as typed (orders.ParseTicketCode). Errors:
// NOT_FOUND (a malformed, forged or unknown reference: the signature must match the
// order's show and seats; a code whose check character does not match, said so
// without a lookup; an unknown code), UNAVAILABLE.
func (d *Door) Check(ctx context.Context, ref string) (*Ticket, error) {
	no, signed := orders.TicketOrderNo(ref)
	if !signed {
		code, err := orders.ParseTicketCode(ref)
		if errors.Is(err, orders.ErrTicketCodeCheck) {
			return nil, &services.Error{Code: services.CodeNotFound, Message: "ticket code " + strings.ToUpper(strings.TrimSpace(ref)) + ": " + err.Error()}
		}
		if err != nil {
			return nil, errNoTicket
		}
		if no, err = d.tickets.OrderNoOfCode(ctx, code); services.ErrorCode(err) == services.CodeNotFound {
			return nil, errNoTicket
		} else if err != nil {
			return nil, err
		}
	}
	o, err := d.orders.ByNo(ctx, no)
	if services.ErrorCode(err) == services.CodeNotFound || err == nil && signed && !d.tickets.Verify(ref, o) {
		return nil, errNoTicket
	}
	if err != nil {
		return nil, err
	}
	return d.read(ctx, o)
}

// read adds the buyer, show and admission to order o. Errors: UNAVAILABLE.
func (d *Door) read(ctx context.Context, o *services.Order) (*Ticket, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	r, err := store.DoorAdmission(ctx, d.db, o.ID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNoTicket
	}
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	t := &Ticket{Order: o, BuyerName: r.BuyerName, ShowTitle: r.ShowTitle, ShowStartsAt: r.ShowStartsAt.UTC(),
		ShowStatus: r.ShowStatus, AdmittedBy: r.AdmittedBy.Int64, AdmittedByName: r.AdmittedByName.String}
	if r.AdmittedAt.Valid {
		at := r.AdmittedAt.Time.UTC()
		t.AdmittedAt = &at
	}
	return t, nil
}

// Admit admits the ticket of reference ref for staff member actorID at a door of scope:
// one conditional update (paid and not yet admitted) sets admitted_at (now, UTC) and
// admitted_by, audited as "ticket.admit" in the same transaction, so of two doors
// scanning the same ticket at once exactly one admits it. It returns the ticket as
// admitted. A refusal returns the ticket as read (nil for NOT_FOUND) together with the
// error, whose message gives the reason, checked in this order:
// NOT_FOUND (malformed, forged or unknown reference), TICKET_NOT_VALID (the show was
// cancelled; the order was refunded; the order is pending, cancelled or expired),
// WRONG_SHOW (the ticket is for another show than scope's: the message names its title
// and local start), ALREADY_ADMITTED ("already admitted at 19:02 by <name>", local time).
// Other errors: UNAVAILABLE.
func (d *Door) Admit(ctx context.Context, actorID int64, ref string, scope DoorScope) (*Ticket, error) {
	t, err := d.Check(ctx, ref)
	if err != nil {
		return nil, err
	}
	if err := d.refusal(t, scope); err != nil {
		return t, err
	}
	now := d.orders.Clock().Now().UTC()
	won := false
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), store.DBTimeout)
	defer cancel()
	err = store.InTx(ctx, d.db, func(tx *sqlx.Tx) error {
		won = false
		n, err := store.AdmitOrder(ctx, tx, t.Order.ID, actorID, now)
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		won = true
		before := ticketAudit{OrderNo: t.Order.OrderNo, ShowID: strconv.FormatInt(t.Order.ShowID, 10), Seats: orders.Labels(t.Order.KeptSeats())}
		after := before
		after.AdmittedAt, after.AdmittedBy = &now, strconv.FormatInt(actorID, 10)
		return d.audit.Record(ctx, tx, actorID, "ticket.admit", "order", t.Order.OrderNo, before, after)
	})
	if err != nil {
		if services.ErrorCode(err) != "" {
			return t, err
		}
		return t, store.Unavailable("the database", err)
	}
	// Read again: the winner sees its own admission, a loser the winner's (or the
	// refund that came first).
	if o, rerr := d.orders.ByNo(ctx, t.Order.OrderNo); rerr == nil {
		t.Order = o
	}
	again, err := d.read(ctx, t.Order)
	if err != nil {
		return t, err
	}
	if won {
		return again, nil
	}
	if err := d.refusal(again, scope); err != nil {
		return again, err
	}
	return again, services.Errorf(services.CodeUnavailable, "the ticket could not be admitted; scan it again")
}

// ticketAudit is how an admission appears in the audit log.
type ticketAudit struct {
	OrderNo    string     `json:"order_no"`
	ShowID     string     `json:"show_id"`
	Seats      []string   `json:"seats"`
	AdmittedAt *time.Time `json:"admitted_at,omitempty"`
	AdmittedBy string     `json:"admitted_by,omitempty"`
}

// refusal says why ticket t may not be admitted at a door of scope (Admit's order of
// reasons); nil when it may.
func (d *Door) refusal(t *Ticket, scope DoorScope) error {
	o := t.Order
	switch {
	case t.ShowStatus == services.ShowCancelled:
		return services.Errorf(services.CodeTicketNotValid, "the show was cancelled (%s, %s): the ticket is not valid", t.ShowTitle, d.local(t.ShowStartsAt))
	case o.Status == services.OrderRefunded:
		return services.Errorf(services.CodeTicketNotValid, "the order was refunded: the ticket is not valid")
	case o.Status != services.OrderPaid:
		return services.Errorf(services.CodeTicketNotValid, "the order is %s, not paid: the ticket is not valid", o.Status)
	case scope.ShowID != 0 && o.ShowID != scope.ShowID,
		scope.ShowID == 0 && scope.Day != "" && t.ShowStartsAt.In(d.zone).Format(time.DateOnly) != scope.Day:
		return services.Errorf(services.CodeWrongShow, "wrong show: this ticket is for %s at %s", t.ShowTitle, d.local(t.ShowStartsAt))
	case t.AdmittedAt != nil:
		by := t.AdmittedByName
		if by == "" {
			by = "staff member " + strconv.FormatInt(t.AdmittedBy, 10)
		}
		return services.Errorf(services.CodeAlreadyAdmitted, "already admitted at %s by %s", t.AdmittedAt.In(d.zone).Format("15:04"), by)
	}
	return nil
}

// local formats a show's start in the cinema's zone: "Mon 2 Dec 19:30".
func (d *Door) local(t time.Time) string { return t.In(d.zone).Format("Mon 2 Jan 15:04") }

// DoorCount is how many seats of paid orders (people with a ticket) a door's shows have
// and how many of them were admitted.
type DoorCount = store.DoorCount

// Count counts the seats of the paid orders of showIDs (none when showIDs is empty) and
// those admitted: people, not orders. Errors: UNAVAILABLE.
func (d *Door) Count(ctx context.Context, showIDs []int64) (DoorCount, error) {
	var c DoorCount
	if len(showIDs) == 0 {
		return c, nil
	}
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	c, err := store.DoorSeatCount(ctx, d.db, showIDs)
	if err != nil {
		return c, store.Unavailable("the database", err)
	}
	return c, nil
}

// Zone is the cinema's time zone, in which the door's messages give times.
func (d *Door) Zone() *time.Location { return d.zone }
