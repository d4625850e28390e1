package orders

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"math"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/mail"
	"seatflow/services/store"
)

// Tenders a counter sale may be paid with (box_office_sales.tender).
const (
	TenderCash = "cash"
	TenderCard = "card"
)

// BoxOfficeProvider names the payments of counter sales: the money was taken at the
// counter, so a refund is handed back there (cash from the drawer, card on the terminal).
const BoxOfficeProvider = "box_office"

// CounterHoldFor is how long a counter sale's seats are held before the sale pays them:
// the hold and the payment run back to back, so this only bounds a sale whose process
// died between the two (its order then expires like any other).
const CounterHoldFor = 2 * time.Minute

// counterLimit stands for "no purchase limit" at the counter (API.md "Box office").
const counterLimit = math.MaxInt32

// CounterSale is a sale at the box office (API.md "Box office"): StaffID sells the seats
// of ShowID, chosen (SeatIDs, Tickets) or best available (Zone, Quantity, Accessible,
// TicketCounts), with an optional Voucher, to a walk-in (no account) who pays with
// Tender (TenderCash, TenderCard). TenderedMinor is the cash given (minor units; nil:
// exactly the total); Email (optional) gets the tickets in Lang (en, zh; "" en).
type CounterSale struct {
	StaffID      int64
	ShowID       int64
	SeatIDs      []int64
	Zone         string
	Quantity     int
	Accessible   bool
	Tickets      map[int64]string
	TicketCounts map[string]int
	// SeatTicketCounts deals types other than adult to the chosen seats, as the
	// booking page does (CreateOrderRequest.SeatTicketCounts).
	SeatTicketCounts map[string]int
	Voucher          string
	Tender           string
	TenderedMinor    *int64
	Email            string
	Lang             string
}

// CounterReceipt is what a counter sale took: the tender, the cash given and the change
// (minor units; 0 for card), and the seller's open shift it counts in (nil: none).
type CounterReceipt = store.BoxOfficeSale

// validate checks the sale's own fields: tender, cash given, e-mail, language.
// Errors: INVALID_REQUEST.
func (s *CounterSale) validate() error {
	switch s.Tender {
	case TenderCash, TenderCard:
	default:
		return services.Errorf(services.CodeInvalidRequest, "tender must be cash or card")
	}
	if s.TenderedMinor != nil && (*s.TenderedMinor < 0 || s.Tender != TenderCash) {
		return services.Errorf(services.CodeInvalidRequest, "tendered_minor is the cash given: 0 or more, with tender cash only")
	}
	switch s.Lang {
	case "":
		s.Lang = "en"
	case "en", "zh":
	default:
		return services.Errorf(services.CodeInvalidRequest, "lang must be en or zh")
	}
	if s.Email != "" {
		e, err := services.CanonicalEmail(s.Email)
		if err != nil {
			return services.Errorf(services.CodeInvalidRequest, "email is not a usable address")
		}
		s.Email = e
	}
	return nil
}

// covers refuses cash given that does not cover order's total (INVALID_REQUEST, the
// total in the message), checked once the seats are priced and before the commit.
func (s *CounterSale) covers(order *services.Order) error {
	if s.Tender == TenderCash && s.TenderedMinor != nil && *s.TenderedMinor < order.TotalMinor {
		return services.Errorf(services.CodeInvalidRequest, "the cash given (%s) is less than the total %s",
			services.Money(*s.TenderedMinor, order.Currency), services.Money(order.TotalMinor, order.Currency))
	}
	return nil
}

// receipt is the sale's record for order: the change is what the cash given exceeds the total by.
func (s *CounterSale) receipt(order *services.Order) *store.BoxOfficeSale {
	r := &store.BoxOfficeSale{OrderID: order.ID, Tender: s.Tender, Lang: s.Lang}
	if s.Tender == TenderCash {
		r.TenderedMinor = order.TotalMinor
		if s.TenderedMinor != nil {
			r.TenderedMinor = *s.TenderedMinor
		}
		r.ChangeMinor = r.TenderedMinor - order.TotalMinor
	}
	if s.Email != "" {
		r.Email = &s.Email
	}
	return r
}

// CounterOpen reports whether the box office sells show at now: from the sale's opening
// until the start, also after the online sale closed, unless the show is a draft or
// cancelled (API.md "Box office").
func CounterOpen(show *services.Show, now time.Time) bool {
	st := show.Stored()
	return st != services.ShowDraft && st != services.ShowCancelled && !now.Before(show.SaleOpensAt) && now.Before(show.StartsAt)
}

// SellAtCounter sells s at the box office, paid at once, through the online pipeline's
// steps (create.go): the same validation, hall and voucher checks, one call of
// lua/order.lua that holds the seats (the precheck, the single-seat rule and the waiting
// list's gate as online; no rate limits, no waiting room, no purchase limit), and the
// group commit's transaction with its MySQL guards (the live-seat unique key, the
// share-mode seat lock, the voucher's guarded update), the order a walk-in's (user_id
// NULL) with channel box_office and sold_by. The pending order is then paid in one
// transaction (payCounter): an approved payment of provider box_office for the total,
// the sale's record (tender, cash given, change, the seller's open shift at the show's
// cinema), the ticket code, the audit entry and, with an address, the tickets' e-mail;
// its seats are then sold in Redis. It returns the paid order and its receipt.
// Errors: INVALID_REQUEST (the request's shape, an unknown tender, cash short of the
// total), NOT_FOUND, NOT_ON_SALE (before the opening, from the start, a draft or
// cancelled show), SEAT_NOT_IN_SHOW, TICKET_TYPE_NOT_OFFERED, VOUCHER_INVALID,
// SEAT_TAKEN, SOLD_OUT, NO_ADJACENT_SEATS, SINGLE_SEAT_GAP, UNAVAILABLE; every error
// leaves Redis and MySQL as they were (a payment that fails cancels the order).
func (o *Orders) SellAtCounter(ctx context.Context, log *audit.Audit, s CounterSale) (*services.Order, *CounterReceipt, error) {
	if err := s.validate(); err != nil {
		return nil, nil, err
	}
	c, err := o.counterCreation(ctx, &s)
	if err != nil {
		return nil, nil, err
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	// no key, rate limits counted (none: staff at a counter are not a flood), precheck on
	g := &gate{precheck: true, counted: true, token: hex.EncodeToString(b)}
	order, err := o.place(ctx, c, g)
	if err != nil {
		return nil, nil, err
	}
	receipt, err := o.payCounter(ctx, log, order, &s, c.now)
	if err != nil {
		if _, cerr := o.End(ctx, order, Change{To: services.OrderCancelled, Reason: "counter payment failed"}); cerr != nil {
			o.log.Error("counter order not cancelled after its payment failed; it expires", "order_no", order.OrderNo, "err", cerr)
		}
		return nil, nil, err
	}
	paid, err := o.ByNo(ctx, order.OrderNo)
	if err != nil {
		return nil, nil, err
	}
	return paid, receipt, nil
}

// counterCreation runs the create steps before the hold for sale s: the request's
// shape, the show at the counter's hours, the hall and ticket types, the voucher.
// Errors: as SellAtCounter's before the hold.
func (o *Orders) counterCreation(ctx context.Context, s *CounterSale) (*creation, error) {
	req := CreateOrderRequest{UserID: services.WalkIn, ShowID: s.ShowID, SeatIDs: s.SeatIDs, Zone: s.Zone, Quantity: s.Quantity,
		Accessible: s.Accessible, Tickets: s.Tickets, TicketCounts: s.TicketCounts, SeatTicketCounts: s.SeatTicketCounts,
		Voucher: s.Voucher, counter: s}
	if err := req.validate(); err != nil {
		return nil, err
	}
	show, err := o.catalog.CachedShow(ctx, req.ShowID)
	if err != nil {
		return nil, err
	}
	now := o.clock.Now()
	if !CounterOpen(show, now) {
		return nil, counterClosed(show, now, o.zone)
	}
	counterShow := *show
	counterShow.PurchaseLimit = counterLimit
	c := &creation{req: req, show: &counterShow, now: now}
	if err := o.inHall(ctx, c); err != nil {
		return nil, err
	}
	if err := o.useVoucher(ctx, c); err != nil {
		return nil, err
	}
	if c.voucherErr != nil {
		return nil, c.voucherErr
	}
	return c, nil
}

// QuoteCounter prices sale s as SellAtCounter would, holding nothing: its seats (best
// available: seats of the zone, none chosen yet) with their ticket types' prices less
// the voucher, in an order that is not stored. The counter shows the total before the
// cash is taken. The tender is not checked. Errors: as SellAtCounter's before the hold.
func (o *Orders) QuoteCounter(ctx context.Context, s CounterSale) (*services.Order, error) {
	if s.Tender == "" {
		s.Tender = TenderCard
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	c, err := o.counterCreation(ctx, &s)
	if err != nil {
		return nil, err
	}
	order := &services.Order{ShowID: c.show.ID, Currency: c.show.Currency, Channel: services.ChannelBoxOffice}
	if len(c.req.SeatIDs) > 0 {
		return order, price(c.show, c.hall, order, c.req.SeatIDs, typesOf(c.req, c.req.SeatIDs), c.voucher, nil)
	}
	for _, t := range typesOf(c.req, make([]int64, c.req.Quantity)) {
		p, ok := c.show.TicketPrice(t, c.req.Zone)
		if !ok {
			return nil, services.Errorf(services.CodeTicketTypeNotOffered, "zone %s does not sell %s", c.req.Zone, t)
		}
		order.Seats = append(order.Seats, services.OrderSeat{ZoneCode: c.req.Zone, TicketType: t, PriceMinor: p})
		order.TotalMinor += p
	}
	_, err = applyVoucher(c.show, order, c.voucher)
	return order, err
}

// payCounter pays the committed pending counter order in one transaction (see
// SellAtCounter) and, having won, sells its seats in Redis and drops its expiry task.
// Errors: NOT_ON_SALE (the show was cancelled meanwhile), UNAVAILABLE.
func (o *Orders) payCounter(ctx context.Context, log *audit.Audit, order *services.Order, s *CounterSale, now time.Time) (*CounterReceipt, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), store.DBTimeout)
	defer cancel()
	receipt := s.receipt(order)
	var won bool
	err := store.InTx(ctx, o.db, func(tx *sqlx.Tx) error {
		pay := &store.Payment{PaymentID: "bo-" + order.OrderNo, OrderID: order.ID, Provider: BoxOfficeProvider,
			AmountMinor: order.TotalMinor, Currency: order.Currency, ProviderRef: s.Tender}
		then := func(ctx context.Context, tx *sqlx.Tx) error {
			if _, err := store.InsertApprovedPayment(ctx, tx, pay, now); err != nil {
				return err
			}
			shift, err := store.OpenShiftOf(ctx, tx, s.StaffID)
			if err != nil && !store.IsNoRows(err) {
				return err
			}
			receipt.ShiftID = nil
			if shift != nil && err == nil && shift.CinemaID == o.cinemaOfShow(ctx, order.ShowID) {
				receipt.ShiftID = &shift.ID
			}
			return store.InsertBoxOfficeSale(ctx, tx, receipt)
		}
		ch := Change{To: services.OrderPaid, At: now, PaidAfter: now, Then: then,
			Audit: &ChangeAudit{Log: log, Actor: s.StaffID, Action: "order.box_office_sale", After: counterAudit{
				Seats: Labels(order.Seats), TotalMinor: order.TotalMinor, Currency: order.Currency, Tender: s.Tender,
				TenderedMinor: receipt.TenderedMinor, ChangeMinor: receipt.ChangeMinor, Email: s.Email}}}
		if s.Email != "" {
			ch.Mail = &mail.Message{Kind: mail.OrderPaid, To: s.Email, Lang: s.Lang}
		}
		var err error
		won, err = o.Transition(ctx, tx, order, ch)
		return err
	})
	if err != nil {
		if services.ErrorCode(err) != "" {
			return nil, err
		}
		return nil, store.Unavailable("the database", err)
	}
	if !won {
		return nil, services.Errorf(services.CodeNotOnSale, "the show was cancelled during the sale")
	}
	order.Status = services.OrderPaid
	o.sold(ctx, order)
	return receipt, nil
}

// cinemaOfShow is the show's cinema from the show cache (0 when it cannot be read: the
// sale then counts in no shift).
func (o *Orders) cinemaOfShow(ctx context.Context, showID int64) int64 {
	show, err := o.catalog.CachedShow(ctx, showID)
	if err != nil {
		return 0
	}
	return show.CinemaID
}

// counterAudit is the after-image of a counter sale's audit entry.
type counterAudit struct {
	Seats         []string `json:"seats"`
	TotalMinor    int64    `json:"total_minor"`
	Currency      string   `json:"currency"`
	Tender        string   `json:"tender"`
	TenderedMinor int64    `json:"tendered_minor"`
	ChangeMinor   int64    `json:"change_minor"`
	Email         string   `json:"email,omitempty"`
}

// counterClosed explains why the counter does not sell show at now (NOT_ON_SALE), with
// times in the cinema's zone.
func counterClosed(show *services.Show, now time.Time, zone *time.Location) error {
	const layout = "Mon 2 Jan 15:04 MST"
	if show.TimeZone != "" {
		zone = show.Loc()
	}
	switch st := show.Stored(); {
	case st == services.ShowDraft || st == services.ShowCancelled:
		return services.Errorf(services.CodeNotOnSale, "this show is not on sale (it is %s)", strings.ReplaceAll(st, "_", " "))
	case now.Before(show.SaleOpensAt):
		return services.Errorf(services.CodeNotOnSale, "sale opens %s", show.SaleOpensAt.In(zone).Format(layout))
	default:
		return services.Errorf(services.CodeNotOnSale, "the show started %s: the counter sells until the start", show.StartsAt.In(zone).Format(layout))
	}
}
