package reports

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/store"
)

// The groupings of a sales report (the by parameter).
const (
	ByDay        = "day"
	ByShow       = "show"
	ByMovie      = "movie"
	ByTicketType = "ticket_type"
	ByChannel    = "channel"
)

// Bys lists the groupings in the order the console offers them.
var Bys = []string{ByDay, ByShow, ByMovie, ByTicketType, ByChannel}

// The channels of an order (orders.channel).
const (
	ChannelOnline    = "online"
	ChannelBoxOffice = "box_office"
)

// MaxDays is the longest range a report covers (from and to included): a leap year.
const MaxDays = 366

// ReadTimeout bounds one report's read (a year of a chain reads in well under it).
const ReadTimeout = 60 * time.Second

// Query asks for a sales report: the local dates From..To (YYYY-MM-DD, both included),
// the grouping By (default ByDay) and one cinema (CinemaID 0: every cinema of the caller's
// scope).
type Query struct {
	From, To string
	By       string
	CinemaID int64
}

// Row is one line of a report: Key (the local date YYYY-MM-DD, the show or movie id, the
// ticket type code or the channel) with its Label, in Currency: Orders paid and Seats sold
// in the range (a later refund lowers neither), GrossMinor their list prices,
// DiscountMinor the voucher savings on them, RefundedMinor the money refunded in the
// range, NetMinor = GrossMinor − DiscountMinor − RefundedMinor; minor units.
type Row struct {
	Key, Label    string
	Currency      string
	Orders, Seats int64
	GrossMinor    int64
	DiscountMinor int64
	RefundedMinor int64
	NetMinor      int64
}

// Plan is a checked Query, ready to read: the local range, the grouping and the cinemas
// (grouped by zone) it covers. Currencies are those cinemas' currencies, sorted.
type Plan struct {
	Query
	Currencies []string
	sq         store.SalesQuery
	from, to   time.Time
	cinemas    []services.Cinema
}

// Reports reads sales reports from the database, complete past days from the rollup
// (rollup.go).
type Reports struct {
	db    *sqlx.DB
	clock services.Clock
}

// New returns the reports over db; clock tells which local days are complete.
func New(db *sqlx.DB, clock services.Clock) *Reports { return &Reports{db: db, clock: clock} }

// Plan checks q against the caller's scope (services.CinemaScopeOf(ctx)) and returns what
// to read. Errors: INVALID_REQUEST (a date not YYYY-MM-DD, from after to, a range over
// MaxDays, an unknown by), FORBIDDEN (a cinema outside the scope), NOT_FOUND (no such
// cinema), UNAVAILABLE.
func (r *Reports) Plan(ctx context.Context, q Query) (*Plan, error) {
	if q.By == "" {
		q.By = ByDay
	}
	if !slices.Contains(Bys, q.By) {
		return nil, services.Errorf(services.CodeInvalidRequest, "by must be one of day, show, movie, ticket_type, channel (got %q)", q.By)
	}
	from, err := parseDate("from", q.From)
	if err != nil {
		return nil, err
	}
	to, err := parseDate("to", q.To)
	if err != nil {
		return nil, err
	}
	if to.Before(from) {
		return nil, services.Errorf(services.CodeInvalidRequest, "from (%s) is after to (%s)", q.From, q.To)
	}
	if days := int(to.Sub(from).Hours()/24) + 1; days > MaxDays {
		return nil, services.Errorf(services.CodeInvalidRequest, "a report covers at most %d days (from %s to %s is %d)", MaxDays, q.From, q.To, days)
	}
	scope := services.CinemaScopeOf(ctx)
	if q.CinemaID != 0 {
		if err := scope.Check(q.CinemaID); err != nil {
			return nil, err
		}
	}
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	all, err := store.Cinemas(qctx, r.db)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	var cinemas []services.Cinema
	for _, c := range all {
		if scope.Allows(c.ID) && (q.CinemaID == 0 || c.ID == q.CinemaID) {
			cinemas = append(cinemas, c)
		}
	}
	if q.CinemaID != 0 && len(cinemas) == 0 {
		return nil, services.Errorf(services.CodeNotFound, "cinema %s not found", strconv.FormatInt(q.CinemaID, 10))
	}
	p := &Plan{Query: q, sq: SalesQuery(q.By, from, to, cinemas), from: from, to: to, cinemas: cinemas}
	for _, c := range cinemas {
		if !slices.Contains(p.Currencies, c.Currency) {
			p.Currencies = append(p.Currencies, c.Currency)
		}
	}
	slices.Sort(p.Currencies)
	return p, nil
}

// parseDate reads a local date YYYY-MM-DD (as a UTC midnight). Errors: INVALID_REQUEST.
func parseDate(name, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, services.Errorf(services.CodeInvalidRequest, "%s is required (YYYY-MM-DD)", name)
	}
	if !services.LocalDateRe.MatchString(s) {
		return time.Time{}, services.Errorf(services.CodeInvalidRequest, "%s must be a date YYYY-MM-DD (got %q)", name, s)
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, services.Errorf(services.CodeInvalidRequest, "%s is not a date (%s)", s, name)
	}
	return t, nil
}

// SalesQuery is the store's query for the local dates from..to (UTC midnights standing
// for dates) of cinemas grouped by their zones, each zone's offsets over the range.
func SalesQuery(by string, from, to time.Time, cinemas []services.Cinema) store.SalesQuery {
	sq := store.SalesQuery{By: by, FromDate: from.Format(time.DateOnly), ToDate: to.Format(time.DateOnly)}
	byZone := map[string][]int64{}
	var zones []string
	for _, c := range cinemas {
		if _, ok := byZone[c.TimeZone]; !ok {
			zones = append(zones, c.TimeZone)
		}
		byZone[c.TimeZone] = append(byZone[c.TimeZone], c.ID)
	}
	type span struct{ lo, hi time.Time }
	ranges := map[string]span{}
	for i, z := range zones {
		loc := services.Location(z)
		lo := time.Date(from.Year(), from.Month(), from.Day(), 0, 0, 0, 0, loc)
		hi := time.Date(to.Year(), to.Month(), to.Day()+1, 0, 0, 0, 0, loc)
		ranges[z] = span{lo, hi}
		if i == 0 || lo.Before(sq.Lo) {
			sq.Lo = lo.UTC()
		}
		if i == 0 || hi.After(sq.Hi) {
			sq.Hi = hi.UTC()
		}
	}
	for _, z := range zones {
		sq.Zones = append(sq.Zones, store.SalesZone{CinemaIDs: byZone[z], Spans: OffsetSpans(services.Location(z), ranges[z].lo, ranges[z].hi),
			From: ranges[z].lo.UTC(), To: ranges[z].hi.UTC()})
	}
	return sq
}

// OffsetSpans returns loc's offsets from UTC over the instants [lo, hi): a span per
// offset in force, each up to the instant the next begins (the last up to hi). A zone
// without daylight saving has one span; a year of one with it, three.
func OffsetSpans(loc *time.Location, lo, hi time.Time) []store.OffsetSpan {
	var out []store.OffsetSpan
	t := lo
	for {
		_, off := t.In(loc).Zone()
		_, end := t.In(loc).ZoneBounds()
		if end.IsZero() || !end.Before(hi) {
			out = append(out, store.OffsetSpan{Until: hi.UTC(), OffsetSeconds: off})
			return out
		}
		if n := len(out); n > 0 && out[n-1].OffsetSeconds == off {
			out[n-1].Until = end.UTC() // only the abbreviation changed
		} else {
			out = append(out, store.OffsetSpan{Until: end.UTC(), OffsetSeconds: off})
		}
		t = end
	}
}

// Totals is a report's sums in one currency: Orders counts each order once (an order of
// two ticket types is on two rows of a by=ticket_type report), the rest are the rows' sums.
type Totals struct {
	Currency      string
	Orders, Seats int64
	GrossMinor    int64
	DiscountMinor int64
	RefundedMinor int64
	NetMinor      int64
}

// Stream reads plan's rows in the report's order (day: by date; show: by start; movie: by
// title; ticket_type: by code; channel: online then box_office), calling emit with each as
// it is read, and returns the totals per currency (sorted by currency; empty without
// rows). Complete past days are rolled up first when they are not yet (rollup.go) and
// read from the rollup; the rest live. An emit error stops the read and is returned.
// Errors: UNAVAILABLE.
func (r *Reports) Stream(ctx context.Context, plan *Plan, emit func(Row) error) ([]Totals, error) {
	qctx, cancel := context.WithTimeout(ctx, ReadTimeout)
	defer cancel()
	sq, err := r.rolledQuery(qctx, plan)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	return stream(ctx, r.db, plan.By, sq, emit)
}

func stream(ctx context.Context, q store.Querier, by string, sq store.SalesQuery, emit func(Row) error) ([]Totals, error) {
	qctx, cancel := context.WithTimeout(ctx, ReadTimeout)
	defer cancel()
	sums := map[string]*Totals{}
	var emitErr error
	err := store.SalesReport(qctx, q, sq, func(s *store.SalesRow) error {
		row := rowOf(by, s)
		t := sums[row.Currency]
		if t == nil {
			t = &Totals{Currency: row.Currency}
			sums[row.Currency] = t
		}
		t.Orders += row.Orders
		t.Seats += row.Seats
		t.GrossMinor += row.GrossMinor
		t.DiscountMinor += row.DiscountMinor
		t.RefundedMinor += row.RefundedMinor
		t.NetMinor += row.NetMinor
		if emitErr = emit(row); emitErr != nil {
			return emitErr
		}
		return nil
	})
	if emitErr != nil {
		return nil, emitErr
	}
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	if by == ByTicketType && len(sums) > 0 {
		orders, err := store.SalesOrdersPerCurrency(qctx, q, sq)
		if err != nil {
			return nil, store.Unavailable("the database", err)
		}
		for cur, t := range sums {
			t.Orders = orders[cur]
		}
	}
	out := make([]Totals, 0, len(sums))
	for _, t := range sums {
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b Totals) int { return cmp.Compare(a.Currency, b.Currency) })
	return out, nil
}

// rowOf is the report row of a store row, labelled for its grouping.
func rowOf(by string, s *store.SalesRow) Row {
	row := Row{Key: s.Key, Currency: s.Currency, Orders: s.Orders, Seats: s.Seats, GrossMinor: s.GrossMinor,
		DiscountMinor: s.DiscountMinor, RefundedMinor: s.RefundedMinor,
		NetMinor: s.GrossMinor - s.DiscountMinor - s.RefundedMinor}
	row.Label = s.Name
	switch by {
	case ByDay:
		if d, err := time.Parse(time.DateOnly, s.Key); err == nil {
			row.Label = d.Format("Mon 2 Jan 2006")
		}
	case ByShow:
		if s.StartsAt != nil {
			row.Label = s.Name + " · " + s.StartsAt.In(services.Location(s.TimeZone)).Format("Mon 2 Jan 2006 15:04") + " · " + s.HallName
		}
	case ByTicketType:
		if row.Label == "" && s.Key == services.TicketAdult {
			row.Label = "Adult"
		}
	case ByChannel:
		row.Label = ChannelLabel(s.Key)
	}
	if row.Label == "" {
		row.Label = s.Key
	}
	return row
}

// ChannelLabel is a channel's name for people: "Online", "Box office".
func ChannelLabel(ch string) string {
	switch ch {
	case ChannelOnline:
		return "Online"
	case ChannelBoxOffice:
		return "Box office"
	}
	return ch
}

// Report is a whole report: its rows in order and the totals per currency.
type Report struct {
	Plan   *Plan
	Rows   []Row
	Totals []Totals
}

// Sales plans q and reads the whole report. Errors: those of Plan and Stream.
func (r *Reports) Sales(ctx context.Context, q Query) (*Report, error) {
	plan, err := r.Plan(ctx, q)
	if err != nil {
		return nil, err
	}
	out := &Report{Plan: plan, Rows: []Row{}}
	if out.Totals, err = r.Stream(ctx, plan, func(row Row) error { out.Rows = append(out.Rows, row); return nil }); err != nil {
		return nil, err
	}
	return out, nil
}

// StoreQuery is the store's query of plan as Stream reads it now: complete days from
// the rollup (rolled up first when they are not yet), the rest live (for EXPLAIN in the
// benchmark). Errors: the database's.
func (r *Reports) StoreQuery(ctx context.Context, plan *Plan) (store.SalesQuery, error) {
	return r.rolledQuery(ctx, plan)
}
