package loadtest

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"seatflow/services"
	"seatflow/services/store"
)

// ScenarioFlashMixed is the flash sale again on a fresh show of the big hall, every order
// naming ticket types (about half the seats child, the rest adult) and a voucher that
// covers every seat (10 % off): what types and a voucher cost the order path beside the
// plain flash sale of the same run (Report.writeMixedVsPlain).
const ScenarioFlashMixed = "flash-mixed"

// mixedChildType is the fixture's second ticket type, sold in every zone at
// fixtureChildPrices; mixedPercentOff is the fixture voucher's discount.
const (
	mixedChildType  = "lt_child"
	mixedPercentOff = 10
)

// fixtureChildPrices are the child type's prices per zone (minor units).
var fixtureChildPrices = map[string]int64{zonePremium: 5000, zoneStandard: 3500}

// ensureChildType inserts the child ticket type unless a former run of the same database
// did; NewFixtures calls it before any order, so a server's cached list of types has it.
func ensureChildType(ctx context.Context, q store.Querier, now time.Time) error {
	err := store.InsertTicketType(ctx, q, services.TicketType{Code: mixedChildType, NameEn: "Child (load test)", NameZh: "儿童（压测）", CreatedAt: now})
	if err != nil && !store.DuplicateOn(err, store.TicketTypeIndex) {
		return fmt.Errorf("fixture ticket type: %w", err)
	}
	return nil
}

// NewMixedShow inserts an on-sale show like NewShow that also sells the child type in
// every zone, and a voucher limited to it (10 % off every seat, as many uses as the hall
// has seats). It returns the show's id and the voucher's code and id.
func (f *Fixtures) NewMixedShow(ctx context.Context, h *Hall, purchaseLimit int) (show int64, code string, voucherID int64, err error) {
	if show, err = f.NewShow(ctx, h, purchaseLimit); err != nil {
		return 0, "", 0, err
	}
	tx, err := f.db.BeginTxx(ctx, nil)
	if err != nil {
		return 0, "", 0, err
	}
	defer tx.Rollback()
	for z, zid := range h.zoneIDs {
		if err := store.SetShowTicketPrice(ctx, tx, show, mixedChildType, zid, fixtureChildPrices[z]); err != nil {
			return 0, "", 0, fmt.Errorf("fixture child price: %w", err)
		}
	}
	cinemaID, err := store.FirstCinemaID(ctx, tx)
	if err != nil {
		return 0, "", 0, fmt.Errorf("fixture voucher's cinema: %w", err)
	}
	now, pct := time.Now().UTC(), int64(mixedPercentOff)
	code = strings.ToUpper(fmt.Sprintf("LT-%s-%d", f.runID, show))
	v := &services.Voucher{Code: code, CinemaID: cinemaID, MaxUses: int64(len(h.Seats)), PercentOff: &pct, Active: true,
		ShowIDs: []int64{show}, CreatedAt: now, UpdatedAt: now}
	if voucherID, err = store.InsertVoucher(ctx, tx, v); err != nil {
		return 0, "", 0, fmt.Errorf("fixture voucher: %w", err)
	}
	return show, code, voucherID, tx.Commit()
}

// mixedOrderBody is orderBody with ticket types and a voucher: chosen seats name every
// other seat (from the first) child; best-available asks (quantity+1)/2 child seats and
// the rest adult.
func mixedOrderBody(seats []int64, zone string, quantity int, voucher string) []byte {
	b := make([]byte, 0, 160)
	if len(seats) > 0 {
		b = append(b, `{"seat_ids":[`...)
		for i, id := range seats {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendQuote(b, strconv.FormatInt(id, 10))
		}
		b = append(b, `],"tickets":{`...)
		for i := 0; i < len(seats); i += 2 {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendQuote(b, strconv.FormatInt(seats[i], 10))
			b = append(b, ':')
			b = strconv.AppendQuote(b, mixedChildType)
		}
		b = append(b, '}')
	} else {
		child := (quantity + 1) / 2
		b = append(b, `{"zone":`...)
		b = strconv.AppendQuote(b, zone)
		b = append(b, `,"quantity":`...)
		b = strconv.AppendInt(b, int64(quantity), 10)
		b = append(b, `,"ticket_counts":{"`+mixedChildType+`":`...)
		b = strconv.AppendInt(b, int64(child), 10)
		if quantity > child {
			b = append(b, `,"adult":`...)
			b = strconv.AppendInt(b, int64(quantity-child), 10)
		}
		b = append(b, '}')
	}
	b = append(b, `,"voucher":`...)
	b = strconv.AppendQuote(b, voucher)
	return append(b, '}')
}

// flashSaleMixed is flashSale with ticket types and a voucher in every order
// (ScenarioFlashMixed); its audit adds the voucher's uses against the seats sold.
func (r *run) flashSaleMixed(ctx context.Context) (*Result, error) {
	show, code, voucherID, err := r.fx.NewMixedShow(ctx, r.big, r.bigShowLimit())
	if err != nil {
		return nil, err
	}
	if err := r.preload(ctx, show); err != nil {
		return nil, err
	}
	s := newSale(show, r.big, r.opts.Clients)
	s.voucher = code
	res, err := r.measureFor(ctx, r.opts.FlashMax, ScenarioFlashMixed,
		fmt.Sprintf("flash sale of %d seats with ticket types (half child) and a 10 %% voucher in every order", len(r.big.Seats)),
		"created orders", func(ctx context.Context, w int) step { return r.buy(ctx, s, w) })
	if err != nil {
		return nil, err
	}
	res.SeatsSold = s.sold.Load()
	res.SoldOut = res.SeatsSold >= int64(len(r.big.Seats)) || (s.soldOut[zonePremium].Load() && s.soldOut[zoneStandard].Load())
	res.Notes = append(res.Notes, fmt.Sprintf("%d seats sold in %d orders; sold out: %s; voucher %s", res.SeatsSold, s.orders.Load(), yesNo(res.SoldOut), code))
	res.audit = r.audit(ctx, show, 0, s.orders.Load(), s.sold.Load())
	res.audit = append(res.audit, r.auditVoucher(ctx, show, voucherID)...)
	return res, nil
}

// auditVoucher checks a voucher that covers every seat of a show: its uses in MySQL
// (vouchers.uses and voucher_uses rows) equal the show's live seats, and every live seat
// is typed adult or child at its zone's price for that type less the discount.
func (r *run) auditVoucher(ctx context.Context, show, voucherID int64) []AuditLine {
	live, err := store.LoadTestLiveSeatCount(ctx, r.db, show)
	if err != nil {
		return auditError(err)
	}
	a, err := store.LoadTestVoucherAudit(ctx, r.db, show, voucherID, mixedPercentOff)
	if err != nil {
		return auditError(err)
	}
	return []AuditLine{
		{Check: fmt.Sprintf("voucher uses %d vs live seats %d: difference", a.Uses, live), Count: abs64(a.Uses - live), MustBeZero: true},
		{Check: fmt.Sprintf("voucher_uses rows %d vs live seats %d: difference", a.Rows, live), Count: abs64(a.Rows - live), MustBeZero: true},
		{Check: "live seats not priced as their type less the voucher", Count: a.Mispriced, MustBeZero: true},
		{Check: fmt.Sprintf("live seats typed child (of %d)", live), Count: a.Child},
	}
}

// targetMixedVsPlain is the floor of the typed flash sale's created orders a second over
// the plain flash sale's of the same run: ticket types and a voucher ride in the same
// Redis call and the same batch, so they should cost little.
const targetMixedVsPlain = 0.90

// mixedTarget states the typed flash sale against the plain one (either missing: not
// run): created orders a second >= 0.90x.
func mixedTarget(plain, mixed *Result) Target {
	t := Target{Name: "flash sale with ticket types and a voucher vs plain flash sale", Want: ">= 0.90x created orders/s", Got: "-", Status: StatusNotRun}
	if plain != nil && mixed != nil && plain.Rate() > 0 {
		r := Ratio(mixed.Rate(), plain.Rate())
		t.Got = fmt.Sprintf("%.2fx (%.0f/s vs %.0f/s), p99 %s vs %s", r, mixed.Rate(), plain.Rate(), fmtMS(mixed.P99), fmtMS(plain.P99))
		t.Status = passMiss(r >= targetMixedVsPlain)
	}
	return t
}

// writeMixedVsPlain writes the typed flash sale beside the plain one (nothing when
// either did not run): created orders a second, each one's ratio to the raw MariaDB
// transaction (mysql) and to the raw hold script (redis), latencies and CPU time per
// created order of each measured process, with typed / plain in the last column.
func (rep *Report) writeMixedVsPlain(w io.Writer) {
	plain, mixed := rep.find(rep.Scenarios, ScenarioFlash), rep.find(rep.Scenarios, ScenarioFlashMixed)
	if plain == nil || mixed == nil {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| flash sale | plain | ticket types + voucher | typed / plain |")
	fmt.Fprintln(w, "|---|---:|---:|---:|")
	fmt.Fprintf(w, "| created orders/s | %.0f | %.0f | %.2f |\n", plain.Rate(), mixed.Rate(), Ratio(mixed.Rate(), plain.Rate()))
	for _, c := range []string{CeilingMySQL, CeilingRedis} {
		if ceil := rep.find(rep.Ceilings, c); ceil != nil && ceil.Rate() > 0 {
			a, b := Ratio(plain.Rate(), ceil.Rate()), Ratio(mixed.Rate(), ceil.Rate())
			fmt.Fprintf(w, "| ratio to the %s ceiling (%.0f/s) | %.2f | %.2f | %.2f |\n", c, ceil.Rate(), a, b, Ratio(b, a))
		}
	}
	for _, l := range []struct {
		name string
		a, b time.Duration
	}{{"p50", plain.P50, mixed.P50}, {"p99", plain.P99, mixed.P99}} {
		fmt.Fprintf(w, "| %s | %s | %s | %.2f |\n", l.name, fmtMS(l.a), fmtMS(l.b), Ratio(float64(l.b), float64(l.a)))
	}
	for _, p := range CPUProcs {
		a, okA := plain.CPUPerOp(p)
		b, okB := mixed.CPUPerOp(p)
		if okA && okB {
			fmt.Fprintf(w, "| %s µs/op | %.1f | %.1f | %.2f |\n", p, a, b, Ratio(b, a))
		}
	}
}
