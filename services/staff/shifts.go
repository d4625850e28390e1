package staff

import (
	"context"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/catalog"
	"seatflow/services/orders"
	"seatflow/services/store"
)

// Shifts runs the box office's shifts (DESIGN.md "Box office"): a staff member opens a
// shift at a cinema with a float, the counter sales they make while it is open count in
// it (box_office_sales.shift_id), and the refunds of counter orders they make meanwhile
// are found in the refunds table by actor and time; closing it takes the counted cash
// and keeps the cash-up. Every open and close is audited in its own transaction
// (invariant 11); limited staff see and close only their cinemas' shifts (invariant 18).
type Shifts struct {
	db      *sqlx.DB
	catalog *catalog.Catalog
	audit   *audit.Audit
	clock   services.Clock
}

// NewShifts wires the shift service.
func NewShifts(db *sqlx.DB, catalog *catalog.Catalog, audit *audit.Audit, clock services.Clock) *Shifts {
	return &Shifts{db: db, catalog: catalog, audit: audit, clock: clock}
}

// CashUp is a shift's money in minor units of its cinema's currency: the float, the
// counter sales recorded against it and the refunds of counter orders its staff member
// made during it, each by tender (with how many), and the cash counted at the close
// (nil while open).
type CashUp struct {
	FloatMinor       int64  `json:"float_minor"`
	CashSales        int    `json:"cash_sales"`
	CashSalesMinor   int64  `json:"cash_sales_minor"`
	CardSales        int    `json:"card_sales"`
	CardSalesMinor   int64  `json:"card_sales_minor"`
	CashRefunds      int    `json:"cash_refunds"`
	CashRefundsMinor int64  `json:"cash_refunds_minor"`
	CardRefunds      int    `json:"card_refunds"`
	CardRefundsMinor int64  `json:"card_refunds_minor"`
	CountedMinor     *int64 `json:"counted_minor"`
}

// ExpectedCashMinor is what the drawer should hold: float + cash sales − cash refunds.
func (c CashUp) ExpectedCashMinor() int64 {
	return c.FloatMinor + c.CashSalesMinor - c.CashRefundsMinor
}

// CardNetMinor is the card takings: card sales − card refunds.
func (c CashUp) CardNetMinor() int64 { return c.CardSalesMinor - c.CardRefundsMinor }

// DifferenceMinor is counted − expected (negative: cash missing), false before the count.
func (c CashUp) DifferenceMinor() (int64, bool) {
	if c.CountedMinor == nil {
		return 0, false
	}
	return *c.CountedMinor - c.ExpectedCashMinor(), true
}

// ShiftView is a shift with its cash-up as of now (open) or its close.
type ShiftView struct {
	*store.Shift
	CashUp CashUp
}

// MaxFloatMinor bounds a float and a count (a typing slip, not a drawer).
const MaxFloatMinor = 100_000_000_00

// Open opens staffID's shift at cinema cinemaID with floatMinor (0..MaxFloatMinor) in
// the cinema's currency. Errors: INVALID_REQUEST (float), FORBIDDEN (a cinema outside
// ctx's scope), NOT_FOUND (unknown cinema), CONFLICT (a shift of staffID is open),
// UNAVAILABLE.
func (s *Shifts) Open(ctx context.Context, staffID, cinemaID, floatMinor int64, note string) (*ShiftView, error) {
	if floatMinor < 0 || floatMinor > MaxFloatMinor {
		return nil, services.Errorf(services.CodeInvalidRequest, "float_minor must be 0..%d", int64(MaxFloatMinor))
	}
	note = strings.TrimSpace(note)
	if len([]rune(note)) > 200 {
		return nil, services.Errorf(services.CodeInvalidRequest, "the note is longer than 200 characters")
	}
	if err := services.CinemaScopeOf(ctx).Check(cinemaID); err != nil {
		return nil, err
	}
	cinema, err := s.catalog.Cinema(ctx, cinemaID)
	if err != nil {
		return nil, err
	}
	sh := &store.Shift{StaffID: staffID, CinemaID: cinemaID, Currency: cinema.Currency, FloatMinor: floatMinor,
		OpenedAt: s.clock.Now().UTC(), Note: note}
	err = store.InTx(ctx, s.db, func(tx *sqlx.Tx) error {
		if err := store.InsertShift(ctx, tx, sh); err != nil {
			return err
		}
		return s.audit.Record(ctx, tx, staffID, "shift.open", "shift", sh.IDString(), nil, sh)
	})
	if err == store.ErrShiftOpen {
		return nil, services.Errorf(services.CodeConflict, "you have a shift open already: close it first")
	}
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	return s.Get(ctx, sh.ID)
}

// Get returns shift id with its cash-up. Errors: NOT_FOUND, FORBIDDEN (another
// cinema's shift for limited staff), UNAVAILABLE.
func (s *Shifts) Get(ctx context.Context, shiftID int64) (*ShiftView, error) {
	sh, err := store.ShiftByID(ctx, s.db, shiftID)
	if store.IsNoRows(err) {
		return nil, services.Errorf(services.CodeNotFound, "shift not found")
	}
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	if err := services.CinemaScopeOf(ctx).Check(sh.CinemaID); err != nil {
		return nil, err
	}
	cu, err := s.cashUp(ctx, s.db, sh)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	return &ShiftView{Shift: sh, CashUp: cu}, nil
}

// Current returns staffID's open shift, nil when none. Errors: UNAVAILABLE.
func (s *Shifts) Current(ctx context.Context, staffID int64) (*ShiftView, error) {
	sh, err := store.OpenShiftOf(ctx, s.db, staffID)
	if store.IsNoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	return s.Get(ctx, sh.ID)
}

// List returns the newest limit (1..500) shifts of ctx's cinemas, of staffID only when
// not 0, each with its cash-up. Errors: UNAVAILABLE.
func (s *Shifts) List(ctx context.Context, staffID int64, limit int) ([]*ShiftView, error) {
	if limit < 1 || limit > 500 {
		limit = 100
	}
	rows, err := store.ListShifts(ctx, s.db, services.CinemaScopeOf(ctx).IDs, staffID, limit)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	out := make([]*ShiftView, len(rows))
	for i, sh := range rows {
		cu, err := s.cashUp(ctx, s.db, sh)
		if err != nil {
			return nil, store.Unavailable("the database", err)
		}
		out[i] = &ShiftView{Shift: sh, CashUp: cu}
	}
	return out, nil
}

// Close closes open shift shiftID, by actorID (its staff member or a manager of its
// cinema), with the cash counted in the drawer (minor units, 0..MaxFloatMinor): the
// cash-up as of now is stored with it (expected cash, card takings) and audited; note
// is kept as its closing note, beside the opening's.
// Errors: INVALID_REQUEST (count, a note over 200 characters), NOT_FOUND, FORBIDDEN, CONFLICT (closed already),
// UNAVAILABLE.
func (s *Shifts) Close(ctx context.Context, actorID, shiftID, countedMinor int64, note string) (*ShiftView, error) {
	if countedMinor < 0 || countedMinor > MaxFloatMinor {
		return nil, services.Errorf(services.CodeInvalidRequest, "counted_minor must be 0..%d", int64(MaxFloatMinor))
	}
	note = strings.TrimSpace(note)
	if len([]rune(note)) > 200 {
		return nil, services.Errorf(services.CodeInvalidRequest, "the note is longer than 200 characters")
	}
	if _, err := s.Get(ctx, shiftID); err != nil { // scope and existence
		return nil, err
	}
	var conflict bool
	err := store.InTx(ctx, s.db, func(tx *sqlx.Tx) error {
		sh, err := store.LockShift(ctx, tx, shiftID)
		if err != nil {
			return err
		}
		if conflict = sh.ClosedAt != nil; conflict {
			return nil
		}
		before := *sh
		now := s.clock.Now().UTC()
		sh.ClosedAt, sh.ClosedBy, sh.CountedMinor = &now, &actorID, &countedMinor
		sh.CloseNote = note
		cu, err := s.cashUp(ctx, tx, sh)
		if err != nil {
			return err
		}
		expected, card := cu.ExpectedCashMinor(), cu.CardNetMinor()
		sh.ExpectedCashMinor, sh.CardMinor = &expected, &card
		if _, err := store.CloseShift(ctx, tx, sh); err != nil {
			return err
		}
		diff, _ := cu.DifferenceMinor()
		return s.audit.Record(ctx, tx, actorID, "shift.close", "shift", sh.IDString(), &before, map[string]any{
			"counted_minor": countedMinor, "expected_cash_minor": expected, "card_minor": card, "difference_minor": diff})
	})
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	if conflict {
		return nil, services.Errorf(services.CodeConflict, "this shift is closed already")
	}
	return s.Get(ctx, shiftID)
}

// cashUp adds up shift sh: its sales by tender, and the refunds of counter orders its
// staff member made from its opening to its close (now while open).
func (s *Shifts) cashUp(ctx context.Context, q store.Querier, sh *store.Shift) (CashUp, error) {
	cu := CashUp{FloatMinor: sh.FloatMinor, CountedMinor: sh.CountedMinor}
	sales, err := store.ShiftSales(ctx, q, sh.ID)
	if err != nil {
		return cu, err
	}
	for _, t := range sales {
		if t.Tender == orders.TenderCash {
			cu.CashSales, cu.CashSalesMinor = t.Count, t.Minor
		} else {
			cu.CardSales, cu.CardSalesMinor = t.Count, t.Minor
		}
	}
	to := s.clock.Now().UTC().Add(time.Microsecond)
	if sh.ClosedAt != nil {
		to = *sh.ClosedAt
	}
	refunds, err := store.ShiftRefunds(ctx, q, sh.StaffID, sh.OpenedAt, to)
	if err != nil {
		return cu, err
	}
	for _, t := range refunds {
		if t.Tender == orders.TenderCash {
			cu.CashRefunds, cu.CashRefundsMinor = t.Count, t.Minor
		} else {
			cu.CardRefunds, cu.CardRefundsMinor = t.Count, t.Minor
		}
	}
	return cu, nil
}
