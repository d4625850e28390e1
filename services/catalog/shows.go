package catalog

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/store"
)

// CleaningTime is the gap a hall needs after a show's runtime before the next show of
// the hall may start.
const CleaningTime = 15 * time.Minute

// MaxPurchaseLimit is the largest purchase limit staff may give a show.
const MaxPurchaseLimit = 100

// MaxAdmitPerMinute is the fastest pace staff may give a waiting room (API.md: 1..100000
// buyers a minute); DefaultAdmitPerMinute is the pace of a room created without one.
const (
	MaxAdmitPerMinute     = 100_000
	DefaultAdmitPerMinute = 600
)

// MaxPriceMinor is the largest zone price in minor units.
const MaxPriceMinor = 100_000_000

// HallSummary is a hall as the admin API lists it: its grid, the number of sellable
// seats (blocked ones left out) and its zones (code and name).
type HallSummary struct {
	ID       int64
	CinemaID int64
	Name     string
	Rows     int
	Cols     int
	Seats    int
	Zones    []services.Zone
}

// ZonePrice is the price of one zone (by code) in minor units.
type ZonePrice struct {
	Zone       string
	PriceMinor int64
}

// NewShow is a show as staff create it: times in any zone (stored UTC), a price for
// every zone of the hall, and a purchase limit (0 means the default).
type NewShow struct {
	MovieID       int64
	HallID        int64
	StartsAt      time.Time
	SaleOpensAt   time.Time
	SaleClosesAt  time.Time
	Prices        []ZonePrice
	PurchaseLimit int
	// SelfRefundUntilH lets buyers cancel and refund a paid order themselves until that
	// many hours before the start (0..MaxSelfRefundHours; nil: not allowed).
	SelfRefundUntilH *int
	// WaitingRoom turns the show's waiting room on from the start (a show of high
	// expected demand); AdmitPerMinute is its pace (0 means DefaultAdmitPerMinute).
	WaitingRoom    bool
	AdmitPerMinute int
	// SingleSeatRule is off, warn or enforce ("" means off).
	SingleSeatRule string
	// TicketPrices prices ticket types other than adult per zone (adult: Prices); a
	// type and zone without a price is not sold.
	TicketPrices []TicketPriceChange
}

// ShowChange is a partial update of a show: nil fields stay as they are; Prices gives
// the zones it names a new price (new orders only: order seats keep their price).
type ShowChange struct {
	SaleOpensAt   *time.Time
	SaleClosesAt  *time.Time
	PurchaseLimit *int
	Prices        []ZonePrice
	// SetSelfRefund, when true, sets the buyers' self-refund cut-off to SelfRefundUntilH
	// hours before the start (nil: not allowed any more).
	SetSelfRefund    bool
	SelfRefundUntilH *int
	// WaitingRoom turns the waiting room on or off; AdmitPerMinute sets its pace
	// (1..MaxAdmitPerMinute), live: the queue follows at its next admission.
	WaitingRoom    *bool
	AdmitPerMinute *int
	// SingleSeatRule sets the single-seat rule (off, warn, enforce) for new orders.
	SingleSeatRule *string
	// TicketPrices changes the type and zone pairs it names (nil price: not sold any
	// more), for new orders only.
	TicketPrices []TicketPriceChange
}

func (c ShowChange) empty() bool {
	return c.SaleOpensAt == nil && c.SaleClosesAt == nil && c.PurchaseLimit == nil && len(c.Prices) == 0 && !c.SetSelfRefund &&
		c.WaitingRoom == nil && c.AdmitPerMinute == nil && c.SingleSeatRule == nil && len(c.TicketPrices) == 0
}

// ShowWriteAudit is what the audit log keeps of a show before and after a write.
type ShowWriteAudit struct {
	MovieID       int64            `json:"movie_id"`
	HallID        int64            `json:"hall_id"`
	StartsAt      time.Time        `json:"starts_at"`
	SaleOpensAt   time.Time        `json:"sale_opens_at"`
	SaleClosesAt  time.Time        `json:"sale_closes_at"`
	Status        string           `json:"status"`
	StoredStatus  string           `json:"stored_status"`
	PurchaseLimit int              `json:"purchase_limit"`
	SelfRefundH   *int             `json:"self_refund_until_h"`
	WaitingRoom   bool             `json:"waiting_room"`
	AdmitPerMin   int              `json:"admit_per_minute"`
	SingleSeat    string           `json:"single_seat_rule"`
	Currency      string           `json:"currency"`
	Prices        map[string]int64 `json:"prices"`
	// TicketPrices are the other types' prices by "type/zone"
	TicketPrices map[string]int64 `json:"ticket_prices,omitempty"`
}

func showWriteAuditOf(s *services.Show, now time.Time) *ShowWriteAudit {
	a := &ShowWriteAudit{MovieID: s.MovieID, HallID: s.HallID, StartsAt: s.StartsAt, SaleOpensAt: s.SaleOpensAt,
		SaleClosesAt: s.SaleClosesAt, Status: s.StatusAt(now), StoredStatus: s.Stored(), PurchaseLimit: s.PurchaseLimit,
		SelfRefundH: s.SelfRefundUntilH, WaitingRoom: s.WaitingRoom, AdmitPerMin: s.AdmitPerMinute, SingleSeat: s.SingleSeatRule, Currency: s.Currency, Prices: map[string]int64{}}
	for _, z := range s.Zones {
		a.Prices[z.Code] = z.PriceMinor
	}
	for _, p := range s.TicketPrices {
		if a.TicketPrices == nil {
			a.TicketPrices = map[string]int64{}
		}
		a.TicketPrices[p.Type+"/"+p.Zone] = p.PriceMinor
	}
	return a
}

// Halls lists the halls of the cinemas in ctx's scope (services.CinemaScopeOf) ordered
// by name with their grid, sellable seats and zones. Errors: UNAVAILABLE.
func (w *CatalogWriter) Halls(ctx context.Context) ([]*HallSummary, error) {
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	ids, err := store.HallIDs(qctx, w.db)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	out := make([]*HallSummary, 0, len(ids))
	for _, id := range ids {
		h, err := w.catalog.Hall(ctx, id)
		if err != nil {
			return nil, err
		}
		if !services.CinemaScopeOf(ctx).Allows(h.CinemaID) {
			continue
		}
		hs := &HallSummary{ID: h.ID, CinemaID: h.CinemaID, Name: h.Name, Rows: h.Rows, Cols: h.Cols, Zones: h.Zones}
		for _, s := range h.Seats {
			if s.Sellable() {
				hs.Seats++
			}
		}
		out = append(out, hs)
	}
	return out, nil
}

// checkWindow refuses a sale window that does not open before it closes or closes after
// the start. Errors: INVALID_REQUEST.
func checkWindow(opens, closes, starts time.Time) error {
	if !opens.Before(closes) {
		return services.Errorf(services.CodeInvalidRequest, "sale_opens_at must be before sale_closes_at")
	}
	if closes.After(starts) {
		return services.Errorf(services.CodeInvalidRequest, "sale_closes_at must not be after starts_at")
	}
	return nil
}

// The single-seat rules a show may have (seats/strand.go applies them).
const (
	RuleOff     = "off"
	RuleWarn    = "warn"
	RuleEnforce = "enforce"
)

// ValidRule reports whether rule is off, warn or enforce.
func ValidRule(rule string) bool { return checkRule(rule) == nil }

// checkRule refuses a single-seat rule other than off, warn or enforce. Errors:
// INVALID_REQUEST.
func checkRule(rule string) error {
	if rule != RuleOff && rule != RuleWarn && rule != RuleEnforce {
		return services.Errorf(services.CodeInvalidRequest, "single_seat_rule must be off, warn or enforce")
	}
	return nil
}

// checkPace refuses a waiting room's pace outside 1..MaxAdmitPerMinute. Errors:
// INVALID_REQUEST.
func checkPace(n int) error {
	if n < 1 || n > MaxAdmitPerMinute {
		return services.Errorf(services.CodeInvalidRequest, "admit_per_minute must be a whole number from 1 to %d", MaxAdmitPerMinute)
	}
	return nil
}

// MaxSelfRefundHours is the most hours before its start a show may let buyers refund
// themselves (a year).
const MaxSelfRefundHours = 8760

// checkSelfRefund refuses a self-refund cut-off outside 0..MaxSelfRefundHours (nil is
// fine: not allowed). Errors: INVALID_REQUEST.
func checkSelfRefund(h *int) error {
	if h != nil && (*h < 0 || *h > MaxSelfRefundHours) {
		return services.Errorf(services.CodeInvalidRequest, "self_refund_until_h must be null or a whole number from 0 to %d", MaxSelfRefundHours)
	}
	return nil
}

// checkLimit refuses a purchase limit outside 1..MaxPurchaseLimit. Errors: INVALID_REQUEST.
func checkLimit(n int) error {
	if n < 1 || n > MaxPurchaseLimit {
		return services.Errorf(services.CodeInvalidRequest, "purchase_limit must be a whole number from 1 to %d", MaxPurchaseLimit)
	}
	return nil
}

// checkPrices refuses a blank or repeated zone and a price outside 0..MaxPriceMinor;
// with all, every zone of hall must be priced; every zone named must be one of hall's.
// Errors: INVALID_REQUEST.
func checkPrices(prices []ZonePrice, hall *services.Hall, all bool) error {
	seen := map[string]bool{}
	for _, p := range prices {
		if p.Zone == "" {
			return services.Errorf(services.CodeInvalidRequest, "every price needs a zone code")
		}
		if seen[p.Zone] {
			return services.Errorf(services.CodeInvalidRequest, "zone %q is priced twice", p.Zone)
		}
		seen[p.Zone] = true
		if p.PriceMinor < 0 || p.PriceMinor > MaxPriceMinor {
			return services.Errorf(services.CodeInvalidRequest, "the price of zone %q must be from 0 to %d minor units", p.Zone, MaxPriceMinor)
		}
	}
	if hall == nil {
		return nil
	}
	known := map[string]bool{}
	for _, z := range hall.Zones {
		known[z.Code] = true
		if all && !seen[z.Code] {
			return services.Errorf(services.CodeInvalidRequest, "zone %q of hall %s has no price", z.Code, hall.Name)
		}
	}
	for _, p := range prices {
		if !known[p.Zone] {
			return services.Errorf(services.CodeInvalidRequest, "zone %q is not a zone of hall %s", p.Zone, hall.Name)
		}
	}
	return nil
}

// CreateShow stores a show for actorID (times stored UTC, stored status on_sale so its
// status follows its sale window, currency of the hall's cinema), audited as "show.create",
// and returns it as the public API reads it. A show whose sale is open gets its seat
// map loaded into the seat cache (a failure only leaves it to load lazily).
// Errors: INVALID_REQUEST (bad window, start not in the future, limit not
// 1..MaxPurchaseLimit, prices missing, unknown or negative), NOT_FOUND (movie or hall),
// CONFLICT (a retired movie; overlaps a non-cancelled show of the hall, start to start + runtime +
// CleaningTime), UNAVAILABLE.
func (w *CatalogWriter) CreateShow(ctx context.Context, actorID int64, in NewShow) (*services.Show, error) {
	now := w.clock.Now()
	s := &services.Show{MovieID: in.MovieID, HallID: in.HallID, StartsAt: in.StartsAt.UTC(), SaleOpensAt: in.SaleOpensAt.UTC(),
		SaleClosesAt: in.SaleClosesAt.UTC(), Status: services.ShowOnSale, PurchaseLimit: in.PurchaseLimit, Currency: w.currency,
		CreatedAt: now.UTC().Truncate(time.Microsecond), SelfRefundUntilH: in.SelfRefundUntilH}
	if err := checkSelfRefund(in.SelfRefundUntilH); err != nil {
		return nil, err
	}
	s.WaitingRoom, s.AdmitPerMinute, s.SingleSeatRule = in.WaitingRoom, in.AdmitPerMinute, in.SingleSeatRule
	if s.SingleSeatRule == "" {
		s.SingleSeatRule = RuleOff
	}
	if err := checkRule(s.SingleSeatRule); err != nil {
		return nil, err
	}
	if s.AdmitPerMinute == 0 {
		s.AdmitPerMinute = DefaultAdmitPerMinute
	}
	if err := checkPace(s.AdmitPerMinute); err != nil {
		return nil, err
	}
	if s.PurchaseLimit == 0 {
		s.PurchaseLimit = w.defaultLimit
	}
	if in.MovieID <= 0 || in.HallID <= 0 {
		return nil, services.Errorf(services.CodeInvalidRequest, "movie_id and hall_id are required")
	}
	if s.StartsAt.IsZero() || s.SaleOpensAt.IsZero() || s.SaleClosesAt.IsZero() {
		return nil, services.Errorf(services.CodeInvalidRequest, "starts_at, sale_opens_at and sale_closes_at are required")
	}
	if !s.StartsAt.After(now) {
		return nil, services.Errorf(services.CodeInvalidRequest, "starts_at must be in the future")
	}
	if err := checkWindow(s.SaleOpensAt, s.SaleClosesAt, s.StartsAt); err != nil {
		return nil, err
	}
	if err := checkLimit(s.PurchaseLimit); err != nil {
		return nil, err
	}
	if err := checkPrices(in.Prices, nil, false); err != nil {
		return nil, err
	}
	hall, err := w.catalog.Hall(ctx, in.HallID)
	if err != nil {
		return nil, err
	}
	if err := services.CinemaScopeOf(ctx).Check(hall.CinemaID); err != nil {
		return nil, err
	}
	if err := checkPrices(in.Prices, hall, true); err != nil {
		return nil, err
	}
	cinema, err := w.hallCinema(ctx, hall.CinemaID)
	if err != nil {
		return nil, err
	}
	s.Currency = cinema.Currency
	if err := w.catalog.checkTicketPrices(ctx, in.TicketPrices, hall, false); err != nil {
		return nil, err
	}
	ctx2, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	err = store.InTx(ctx2, w.db, func(tx *sqlx.Tx) error {
		// one writer per hall at a time, so two overlapping shows cannot both pass the
		// check; taken first, so the transaction's snapshot (its first plain read) already
		// holds the show another writer committed before we got the lock
		if err := store.LockHallForShows(ctx2, tx, in.HallID); err != nil {
			return err
		}
		// the zones as of now (a hall edit may have added one since the cached read):
		// every one gets a price
		zones, err := store.HallSeatZones(ctx2, tx, in.HallID)
		if err != nil {
			return err
		}
		if err := checkPrices(in.Prices, &services.Hall{Name: hall.Name, Zones: zones}, true); err != nil {
			return err
		}
		if err := movieOffered(ctx2, tx, in.MovieID); err != nil {
			return err
		}
		if s.Movie, err = store.MovieByID(ctx2, tx, in.MovieID); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return services.Errorf(services.CodeNotFound, "movie %d not found", in.MovieID)
			}
			return err
		}
		if err := noOverlap(ctx2, tx, in.HallID, 0, s.StartsAt, s.Movie.RuntimeMin); err != nil {
			return err
		}
		if s.ID, err = store.InsertShow(ctx2, tx, s); err != nil {
			if store.DuplicateOn(err, "uq_shows_hall_start") {
				return services.Errorf(services.CodeConflict, "hall %s already has a show (perhaps cancelled) starting at %s", hall.Name, s.StartsAt.Format(time.RFC3339))
			}
			return err
		}
		s.Zones = s.Zones[:0]
		for _, z := range zones {
			price, _ := priceOf(in.Prices, z.Code)
			if err := store.InsertShowPrice(ctx2, tx, s.ID, z.ID, price); err != nil {
				return err
			}
			s.Zones = append(s.Zones, services.Zone{ID: z.ID, Code: z.Code, Name: z.Name, PriceMinor: price})
		}
		if err := setTicketPrices(ctx2, tx, s, &services.Hall{Name: hall.Name, Zones: zones}, in.TicketPrices); err != nil {
			return err
		}
		return w.audit.Record(ctx2, tx, actorID, "show.create", "show", strconv.FormatInt(s.ID, 10), nil, showWriteAuditOf(s, now))
	})
	if err != nil {
		return nil, asServiceError(err)
	}
	w.catalog.ForgetShow(s.ID)
	if s.OnSaleAt(now) {
		w.preload(ctx, s.ID)
	}
	return w.read(ctx, s.ID)
}

// priceOf is the price prices gives zone (minor units), and whether it gives one.
func priceOf(prices []ZonePrice, zone string) (int64, bool) {
	for _, p := range prices {
		if p.Zone == zone {
			return p.PriceMinor, true
		}
	}
	return 0, false
}

// noOverlap refuses a show of hall starting at starts with a runtime of runtimeMin
// minutes that overlaps another non-cancelled show of the hall (other than except):
// each occupies its hall from its start to start + runtime + CleaningTime.
// Errors: CONFLICT, or the database's error.
func noOverlap(ctx context.Context, tx *sqlx.Tx, hallID, except int64, starts time.Time, runtimeMin int) error {
	ends := starts.Add(time.Duration(runtimeMin)*time.Minute + CleaningTime)
	c, found, err := store.OverlappingShow(ctx, tx, hallID, except, starts, ends, int(CleaningTime/time.Minute))
	if err != nil {
		return err
	}
	if found {
		return services.Errorf(services.CodeConflict, "overlaps show %d (%s at %s) in this hall, cleaning time included", c.ID, c.Title, c.StartsAt.UTC().Format(time.RFC3339))
	}
	return nil
}

// lockShow reads a show's row and prices inside tx, locking the row. Errors: NOT_FOUND,
// or the database's error.
func lockShow(ctx context.Context, tx *sqlx.Tx, id int64) (*services.Show, error) {
	s, err := store.LockShow(ctx, tx, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, services.Errorf(services.CodeNotFound, "show %d not found", id)
	}
	if err != nil {
		return nil, err
	}
	s.StoredStatus = s.Status
	if s.Zones, err = store.ShowPricesByZone(ctx, tx, id); err != nil {
		return nil, err
	}
	s.TicketPrices, err = store.ShowTicketPrices(ctx, tx, id)
	return s, err
}

// UpdateShow changes a show's sale window, purchase limit, zone prices and waiting room
// (on/off, pace) for actorID,
// audited as "show.update", and returns it as the public API reads it. An empty change
// writes nothing. Errors: INVALID_REQUEST (as CreateShow), NOT_FOUND, CONFLICT (a
// cancelled show), UNAVAILABLE.
func (w *CatalogWriter) UpdateShow(ctx context.Context, actorID, id int64, ch ShowChange) (*services.Show, error) {
	if ch.PurchaseLimit != nil {
		if err := checkLimit(*ch.PurchaseLimit); err != nil {
			return nil, err
		}
	}
	if ch.AdmitPerMinute != nil {
		if err := checkPace(*ch.AdmitPerMinute); err != nil {
			return nil, err
		}
	}
	if ch.SetSelfRefund {
		if err := checkSelfRefund(ch.SelfRefundUntilH); err != nil {
			return nil, err
		}
	}
	if ch.SingleSeatRule != nil {
		if err := checkRule(*ch.SingleSeatRule); err != nil {
			return nil, err
		}
	}
	if err := checkPrices(ch.Prices, nil, false); err != nil {
		return nil, err
	}
	if err := w.catalog.checkTicketPrices(ctx, ch.TicketPrices, nil, true); err != nil {
		return nil, err
	}
	if ch.empty() {
		return w.read(ctx, id)
	}
	now := w.clock.Now()
	err := w.writeShow(ctx, actorID, id, func(tx *sqlx.Tx, s *services.Show) (string, error) {
		if s.Stored() == services.ShowCancelled {
			return "", services.Errorf(services.CodeConflict, "show %d is cancelled", id)
		}
		windowChanged := false
		if ch.SaleOpensAt != nil {
			s.SaleOpensAt, windowChanged = ch.SaleOpensAt.UTC(), true
		}
		if ch.SaleClosesAt != nil {
			s.SaleClosesAt, windowChanged = ch.SaleClosesAt.UTC(), true
		}
		if err := checkWindow(s.SaleOpensAt, s.SaleClosesAt, s.StartsAt); err != nil {
			return "", err
		}
		if ch.PurchaseLimit != nil {
			s.PurchaseLimit = *ch.PurchaseLimit
		}
		if ch.SetSelfRefund {
			s.SelfRefundUntilH = ch.SelfRefundUntilH
		}
		if ch.WaitingRoom != nil {
			if *ch.WaitingRoom && !s.WaitingRoom {
				s.RoomEpoch++ // turned on: earlier admissions end (API.md "Waiting room")
			}
			s.WaitingRoom = *ch.WaitingRoom
		}
		if ch.AdmitPerMinute != nil {
			s.AdmitPerMinute = *ch.AdmitPerMinute
		}
		if ch.SingleSeatRule != nil {
			s.SingleSeatRule = *ch.SingleSeatRule
		}
		if windowChanged && s.StoredStatus != services.ShowDraft {
			s.StoredStatus = services.ShowOnSale // the status follows the new window
		}
		hall, err := w.catalog.Hall(ctx, s.HallID)
		if err != nil {
			return "", err
		}
		if err := checkPrices(ch.Prices, hall, false); err != nil {
			return "", err
		}
		for _, p := range ch.Prices {
			for i := range hall.Zones {
				z := hall.Zones[i]
				if z.Code != p.Zone {
					continue
				}
				if err := store.SetShowPrice(ctx, tx, id, z.ID, p.PriceMinor); err != nil {
					return "", err
				}
				setPrice(s, z, p.PriceMinor)
			}
		}
		if err := w.catalog.checkTicketPrices(ctx, ch.TicketPrices, hall, true); err != nil {
			return "", err
		}
		if err := setTicketPrices(ctx, tx, s, hall, ch.TicketPrices); err != nil {
			return "", err
		}
		return "show.update", nil
	}, now)
	if err != nil {
		return nil, err
	}
	return w.read(ctx, id)
}

func setPrice(s *services.Show, z services.Zone, price int64) {
	for i := range s.Zones {
		if s.Zones[i].Code == z.Code {
			s.Zones[i].PriceMinor = price
			return
		}
	}
	s.Zones = append(s.Zones, services.Zone{ID: z.ID, Code: z.Code, Name: z.Name, PriceMinor: price})
}

// OpenSale opens a show's sale now for actorID (sale_opens_at = now to the microsecond;
// a draft is published), audited as "show.open_sale", loads its seat map, and returns it
// as the public API reads it (API.md: on_sale now). When the sale window has already
// closed (a close-sale, or its time passed) sale_closes_at moves to the show's start, so
// close-sale then open-sale is one undo. A show on sale stays as it is.
// Errors: NOT_FOUND, CONFLICT (cancelled, or started: nothing is sold after the start),
// UNAVAILABLE.
func (w *CatalogWriter) OpenSale(ctx context.Context, actorID, id int64) (*services.Show, error) {
	now := w.clock.Now()
	err := w.writeShow(ctx, actorID, id, func(tx *sqlx.Tx, s *services.Show) (string, error) {
		switch {
		case s.Stored() == services.ShowCancelled:
			return "", services.Errorf(services.CodeConflict, "show %d is cancelled", id)
		case s.StatusAt(now) == services.ShowOnSale:
			return "", nil
		case !now.Before(s.StartsAt):
			return "", services.Errorf(services.CodeConflict, "show %d started at %s; its sale cannot open again",
				id, s.StartsAt.Format(time.RFC3339))
		case !now.Before(s.SaleClosesAt):
			s.SaleClosesAt = s.StartsAt
		}
		s.SaleOpensAt = now.UTC().Truncate(time.Microsecond)
		s.StoredStatus = services.ShowOnSale
		return "show.open_sale", nil
	}, now)
	if err != nil {
		return nil, err
	}
	w.preload(ctx, id)
	return w.read(ctx, id)
}

// CloseSale closes a show's sale now for actorID (sale_closes_at = now, and
// sale_opens_at too when it was later), audited as "show.close_sale", and returns it as
// the public API reads it: no new orders. A closed show stays as it is.
// Errors: NOT_FOUND, CONFLICT (cancelled), UNAVAILABLE.
func (w *CatalogWriter) CloseSale(ctx context.Context, actorID, id int64) (*services.Show, error) {
	now := w.clock.Now()
	err := w.writeShow(ctx, actorID, id, func(tx *sqlx.Tx, s *services.Show) (string, error) {
		switch {
		case s.Stored() == services.ShowCancelled:
			return "", services.Errorf(services.CodeConflict, "show %d is cancelled", id)
		case s.StatusAt(now) == services.ShowClosed:
			return "", nil
		}
		at := now.UTC().Truncate(time.Microsecond)
		s.SaleClosesAt = at
		if s.SaleOpensAt.After(at) {
			s.SaleOpensAt = at
		}
		if s.StoredStatus != services.ShowDraft {
			s.StoredStatus = services.ShowClosed
		}
		return "show.close_sale", nil
	}, now)
	if err != nil {
		return nil, err
	}
	return w.read(ctx, id)
}

// writeShow locks show id in a transaction for actorID and lets change edit it; change returns the
// audit action, or "" to write nothing. The row (window, limit, stored status) is then
// written and audited with its state before and after, and the order path's cache of
// the show dropped. Errors: those of change, NOT_FOUND, UNAVAILABLE.
func (w *CatalogWriter) writeShow(ctx context.Context, actorID, id int64, change func(tx *sqlx.Tx, s *services.Show) (string, error), now time.Time) error {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	err := store.InTx(ctx, w.db, func(tx *sqlx.Tx) error {
		s, err := lockShow(ctx, tx, id)
		if err != nil {
			return err
		}
		before := showWriteAuditOf(s, now)
		action, err := change(tx, s)
		if err != nil || action == "" {
			return err
		}
		if err := store.SetShowSale(ctx, tx, s); err != nil {
			return err
		}
		return w.audit.Record(ctx, tx, actorID, action, "show", strconv.FormatInt(id, 10), before, showWriteAuditOf(s, now))
	})
	w.catalog.ForgetShow(id)
	return asServiceError(err)
}

// read returns show id as the public API reads it (any stored status, drafts too), with
// seats left. Errors: NOT_FOUND, UNAVAILABLE.
func (w *CatalogWriter) read(ctx context.Context, id int64) (*services.Show, error) {
	s, err := w.catalog.Show(ctx, id)
	if err != nil {
		return nil, err
	}
	return s, w.maps.FillSeatsLeft(ctx, []*services.Show{s})
}

// preload loads a show's seat map into the seat cache ahead of its buyers; a failure is
// no error (the map loads lazily on first use).
func (w *CatalogWriter) preload(ctx context.Context, id int64) {
	_ = w.maps.Load(ctx, id)
}
