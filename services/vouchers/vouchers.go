package vouchers

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/store"
)

// ErrDuplicateCode is the cause of the CONFLICT answered for a code in use.
var ErrDuplicateCode = errors.New("services: duplicate voucher code")

// MaxUses is the highest max_uses a voucher may have; MaxMinor the largest amount
// (minor units) a rule may name.
const (
	MaxUses  = 1_000_000_000
	MaxMinor = 1_000_000_000_000
)

// CatalogReader is what the vouchers need of catalog.Catalog: cinemas and ticket types.
type CatalogReader interface {
	Cinema(ctx context.Context, id int64) (services.Cinema, error)
	FirstCinema(ctx context.Context) (services.Cinema, error)
	TicketType(ctx context.Context, code string) (services.TicketType, bool, error)
}

// Vouchers creates, changes and lists vouchers over MySQL.
type Vouchers struct {
	db      *sqlx.DB
	catalog CatalogReader
	audit   *audit.Audit
	clock   services.Clock
}

// New returns the vouchers service.
func New(db *sqlx.DB, catalog CatalogReader, audit *audit.Audit, clock services.Clock) *Vouchers {
	return &Vouchers{db: db, catalog: catalog, audit: audit, clock: clock}
}

// Rule is what a covered seat costs: exactly one of PercentOff (1..100), AmountOffMinor
// (≥ 1) and PriceMinor (≥ 0), minor units of the cinema's currency.
type Rule struct {
	PercentOff     *int64
	AmountOffMinor *int64
	PriceMinor     *int64
}

// Input is a new voucher: its Code (4..32 of A-Z 0-9 '-', any case), its cinema (0: its
// shows' when it is limited to shows, else the install's first for staff of every
// cinema, or a limited staff member's only one),
// MaxUses (≥ 1), the Rule, an optional window [ValidFrom, ValidUntil) (UTC) and the shows
// (of its cinema) and ticket types it is limited to (none: all).
type Input struct {
	Code        string
	CinemaID    int64
	MaxUses     int64
	Rule        Rule
	ValidFrom   *time.Time
	ValidUntil  *time.Time
	ShowIDs     []int64
	TicketTypes []string
}

// Change is a PATCH of a voucher: each non-nil field replaces the voucher's; a non-nil
// Rule replaces the whole rule; ValidFrom/ValidUntil replace the bound when their Set
// flag is true (nil then clears it).
type Change struct {
	MaxUses       *int64
	Rule          *Rule
	SetValidFrom  bool
	ValidFrom     *time.Time
	SetValidUntil bool
	ValidUntil    *time.Time
	ShowIDs       *[]int64
	TicketTypes   *[]string
	Active        *bool
}

func invalid(format string, a ...any) error {
	return services.Errorf(services.CodeInvalidRequest, format, a...)
}

// Create stores a new active voucher written by actorID, audited as "voucher.create",
// and returns it. Errors: INVALID_REQUEST, FORBIDDEN (a cinema outside ctx's scope),
// NOT_FOUND (the cinema), CONFLICT wrapping ErrDuplicateCode, UNAVAILABLE.
func (s *Vouchers) Create(ctx context.Context, actorID int64, in Input) (*services.Voucher, error) {
	code, ok := services.CanonicalVoucherCode(in.Code)
	if !ok {
		return nil, invalid("code must be 4 to 32 characters of A-Z, 0-9 and -")
	}
	v, err := s.newVoucher(ctx, in)
	if err != nil {
		return nil, err
	}
	v.Code = code
	if err := s.checkLimits(ctx, v); err != nil {
		return nil, err
	}
	tctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	err = store.InTx(tctx, s.db, func(tx *sqlx.Tx) error {
		var err error
		if v.ID, err = store.InsertVoucher(tctx, tx, v); err != nil {
			return err
		}
		return s.audit.Record(tctx, tx, actorID, "voucher.create", "voucher", v.Code, nil, auditOf(v))
	})
	if err != nil {
		return nil, writeError(err, v.Code)
	}
	return v, nil
}

// newVoucher is the voucher in describes (no code yet), checked but for its shows and
// ticket types (checkLimits). Errors: INVALID_REQUEST, FORBIDDEN, NOT_FOUND, UNAVAILABLE.
func (s *Vouchers) newVoucher(ctx context.Context, in Input) (*services.Voucher, error) {
	id := in.CinemaID
	if id == 0 && len(in.ShowIDs) > 0 {
		var err error
		if id, err = s.cinemaOfShows(ctx, in.ShowIDs); err != nil {
			return nil, err
		}
	}
	cinema, err := s.cinemaFor(ctx, id)
	if err != nil {
		return nil, err
	}
	now := s.clock.Now().UTC().Truncate(time.Microsecond)
	v := &services.Voucher{CinemaID: cinema.ID, MaxUses: in.MaxUses, PercentOff: in.Rule.PercentOff,
		AmountOffMinor: in.Rule.AmountOffMinor, PriceMinor: in.Rule.PriceMinor, ValidFrom: utc(in.ValidFrom),
		ValidUntil: utc(in.ValidUntil), Active: true, CreatedAt: now, UpdatedAt: now,
		ShowIDs: in.ShowIDs, TicketTypes: in.TicketTypes}
	return v, checkRules(v)
}

// cinemaOfShows is the cinema of a voucher limited to shows ids and given no cinema: the
// shows' own, which must be one. Errors: INVALID_REQUEST (an unknown show, shows of
// several cinemas), UNAVAILABLE.
func (s *Vouchers) cinemaOfShows(ctx context.Context, ids []int64) (int64, error) {
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	cinemas, err := store.ShowCinemas(qctx, s.db, ids)
	if err != nil {
		return 0, store.Unavailable("the database", err)
	}
	var cinema int64
	for _, id := range ids {
		c, ok := cinemas[id]
		switch {
		case !ok:
			return 0, invalid("show %d does not exist", id)
		case cinema != 0 && c != cinema:
			return 0, invalid("shows %d and %d are of different cinemas: a voucher is one cinema's", ids[0], id)
		}
		cinema = c
	}
	return cinema, nil
}

// cinemaFor returns the cinema a new voucher goes in: id, or when 0 the install's first
// (every cinema in ctx's scope) or the scope's only cinema. Errors: INVALID_REQUEST
// (several cinemas and none named), FORBIDDEN, NOT_FOUND, UNAVAILABLE.
func (s *Vouchers) cinemaFor(ctx context.Context, id int64) (services.Cinema, error) {
	scope := services.CinemaScopeOf(ctx)
	switch {
	case id == 0 && scope.All():
		return s.catalog.FirstCinema(ctx)
	case id == 0 && len(scope.IDs) > 1:
		return services.Cinema{}, invalid("cinema_id is required: your account works for several cinemas")
	case id == 0:
		id = scope.IDs[0]
	}
	if err := scope.Check(id); err != nil {
		return services.Cinema{}, err
	}
	return s.catalog.Cinema(ctx, id)
}

// checkRules checks what a voucher says without reading anything: max_uses, exactly one
// rule in its range, the window's order. Errors: INVALID_REQUEST.
func checkRules(v *services.Voucher) error {
	if v.MaxUses < 1 || v.MaxUses > MaxUses {
		return invalid("max_uses must be a whole number from 1 to %d", MaxUses)
	}
	n := 0
	for _, r := range []*int64{v.PercentOff, v.AmountOffMinor, v.PriceMinor} {
		if r != nil {
			n++
		}
	}
	if n != 1 {
		return invalid("give exactly one of percent_off, amount_off_minor and price_minor")
	}
	switch {
	case v.PercentOff != nil && (*v.PercentOff < 1 || *v.PercentOff > 100):
		return invalid("percent_off must be a whole number from 1 to 100")
	case v.AmountOffMinor != nil && (*v.AmountOffMinor < 1 || *v.AmountOffMinor > MaxMinor):
		return invalid("amount_off_minor must be a whole number of minor units from 1 to %d", int64(MaxMinor))
	case v.PriceMinor != nil && (*v.PriceMinor < 0 || *v.PriceMinor > MaxMinor):
		return invalid("price_minor must be a whole number of minor units from 0 to %d", int64(MaxMinor))
	}
	if v.ValidFrom != nil && v.ValidUntil != nil && !v.ValidFrom.Before(*v.ValidUntil) {
		return invalid("valid_from must be before valid_until")
	}
	return nil
}

// checkLimits checks that v's shows are shows of its cinema and its ticket types exist,
// and sorts both without repeats. Errors: INVALID_REQUEST, UNAVAILABLE.
func (s *Vouchers) checkLimits(ctx context.Context, v *services.Voucher) error {
	slices.Sort(v.ShowIDs)
	v.ShowIDs = slices.Compact(v.ShowIDs)
	slices.Sort(v.TicketTypes)
	v.TicketTypes = slices.Compact(v.TicketTypes)
	if len(v.ShowIDs) > 0 {
		qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
		defer cancel()
		cinemas, err := store.ShowCinemas(qctx, s.db, v.ShowIDs)
		if err != nil {
			return store.Unavailable("the database", err)
		}
		for _, id := range v.ShowIDs {
			if c, ok := cinemas[id]; !ok || c != v.CinemaID {
				return invalid("show %d is not a show of cinema %d", id, v.CinemaID)
			}
		}
	}
	for _, t := range v.TicketTypes {
		_, ok, err := s.catalog.TicketType(ctx, t)
		if err != nil {
			return err
		}
		if !ok {
			return invalid("ticket type %q does not exist", t)
		}
	}
	return nil
}

// ByCode returns the voucher with code (any case). Errors: NOT_FOUND, FORBIDDEN (another
// cinema's, for limited staff), UNAVAILABLE.
func (s *Vouchers) ByCode(ctx context.Context, code string) (*services.Voucher, error) {
	c, _ := services.CanonicalVoucherCode(code)
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	v, err := store.VoucherByCode(qctx, s.db, c)
	if store.IsNoRows(err) {
		return nil, services.Errorf(services.CodeNotFound, "voucher %s not found", strconv.Quote(c))
	}
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	if err := services.CinemaScopeOf(ctx).Check(v.CinemaID); err != nil {
		return nil, err
	}
	return v, nil
}

// Filter narrows List: to one cinema (0: every cinema of ctx's scope), one batch ("":
// any), at most Limit (1..1000, default 200) newest first.
type Filter struct {
	CinemaID int64
	Batch    string
	Limit    int
}

// List returns the vouchers f asks for of ctx's scope's cinemas. Errors: FORBIDDEN
// (f.CinemaID outside the scope), UNAVAILABLE.
func (s *Vouchers) List(ctx context.Context, f Filter) ([]*services.Voucher, error) {
	if f.Limit < 1 || f.Limit > MaxBatch {
		f.Limit = 200
	}
	scope := services.CinemaScopeOf(ctx)
	var ids []int64
	if f.CinemaID != 0 {
		if err := scope.Check(f.CinemaID); err != nil {
			return nil, err
		}
		ids = []int64{f.CinemaID}
	} else if !scope.All() {
		ids = scope.IDs
	}
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	vs, err := store.VouchersOfBatch(qctx, s.db, ids, f.Batch, f.Limit)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	return vs, nil
}

// Update applies ch to the voucher with code, written by actorID, audited as
// "voucher.update" (before and after), and returns it. Ending a voucher (Active false)
// stops new uses; live orders keep theirs. Errors: INVALID_REQUEST (also max_uses below
// the live uses), NOT_FOUND, FORBIDDEN, UNAVAILABLE.
func (s *Vouchers) Update(ctx context.Context, actorID int64, code string, ch Change) (*services.Voucher, error) {
	cur, err := s.ByCode(ctx, code)
	if err != nil {
		return nil, err
	}
	next := applyChange(*cur, ch)
	next.UpdatedAt = s.clock.Now().UTC().Truncate(time.Microsecond)
	if err := checkRules(&next); err != nil {
		return nil, err
	}
	if err := s.checkLimits(ctx, &next); err != nil {
		return nil, err
	}
	tctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	err = store.InTx(tctx, s.db, func(tx *sqlx.Tx) error {
		locked, err := store.VoucherByCodeForUpdate(tctx, tx, cur.Code)
		if err != nil {
			return err
		}
		if next.MaxUses < locked.Uses {
			return invalid("max_uses cannot go below the %d live uses", locked.Uses)
		}
		next.Uses = locked.Uses
		if err := store.UpdateVoucher(tctx, tx, &next); err != nil {
			return err
		}
		return s.audit.Record(tctx, tx, actorID, "voucher.update", "voucher", cur.Code, auditOf(locked), auditOf(&next))
	})
	if isCheckViolation(err) {
		return nil, invalid("max_uses cannot go below the live uses")
	}
	if err != nil {
		return nil, writeError(err, cur.Code)
	}
	return &next, nil
}

// applyChange returns v with ch's fields in place.
func applyChange(v services.Voucher, ch Change) services.Voucher {
	if ch.MaxUses != nil {
		v.MaxUses = *ch.MaxUses
	}
	if ch.Rule != nil {
		v.PercentOff, v.AmountOffMinor, v.PriceMinor = ch.Rule.PercentOff, ch.Rule.AmountOffMinor, ch.Rule.PriceMinor
	}
	if ch.SetValidFrom {
		v.ValidFrom = utc(ch.ValidFrom)
	}
	if ch.SetValidUntil {
		v.ValidUntil = utc(ch.ValidUntil)
	}
	if ch.ShowIDs != nil {
		v.ShowIDs = slices.Clone(*ch.ShowIDs)
	}
	if ch.TicketTypes != nil {
		v.TicketTypes = slices.Clone(*ch.TicketTypes)
	}
	if ch.Active != nil {
		v.Active = *ch.Active
	}
	return v
}

// isCheckViolation reports whether err is MySQL's 4025 (MariaDB) or 3819 (MySQL): a
// CHECK constraint refused the row (max_uses below uses, racing an order).
func isCheckViolation(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 4025 || me.Number == 3819)
}

// writeError maps a failed voucher write: a code in use is CONFLICT.
func writeError(err error, code string) error {
	if store.DuplicateOn(err, store.VoucherCodeIndex) {
		return &services.Error{Code: services.CodeConflict, Message: "voucher code " + strconv.Quote(code) + " is taken", Err: ErrDuplicateCode}
	}
	var e *services.Error
	if errors.As(err, &e) {
		return e
	}
	return store.Unavailable("the database", err)
}

// utc returns t in UTC to the microsecond (nil stays nil).
func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC().Truncate(time.Microsecond)
	return &u
}

// auditEntry is a voucher as the audit log keeps it.
type auditEntry struct {
	Code           string     `json:"code"`
	CinemaID       int64      `json:"cinema_id"`
	MaxUses        int64      `json:"max_uses"`
	Uses           int64      `json:"uses"`
	PercentOff     *int64     `json:"percent_off,omitempty"`
	AmountOffMinor *int64     `json:"amount_off_minor,omitempty"`
	PriceMinor     *int64     `json:"price_minor,omitempty"`
	ValidFrom      *time.Time `json:"valid_from,omitempty"`
	ValidUntil     *time.Time `json:"valid_until,omitempty"`
	ShowIDs        []int64    `json:"show_ids,omitempty"`
	TicketTypes    []string   `json:"ticket_types,omitempty"`
	Active         bool       `json:"active"`
	Batch          string     `json:"batch,omitempty"`
}

func auditOf(v *services.Voucher) auditEntry {
	return auditEntry{Code: v.Code, CinemaID: v.CinemaID, MaxUses: v.MaxUses, Uses: v.Uses, PercentOff: v.PercentOff,
		AmountOffMinor: v.AmountOffMinor, PriceMinor: v.PriceMinor, ValidFrom: v.ValidFrom, ValidUntil: v.ValidUntil,
		ShowIDs: v.ShowIDs, TicketTypes: v.TicketTypes, Active: v.Active, Batch: v.Batch}
}
