package handlers

import (
	"context"
	"sort"
	"strings"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/orders"
	"seatflow/services/vouchers"
)

// voucherQuoteJSON is what GET /api/v1/shows/{id}/voucher answers: the saving and the
// total with the code, and each seat's list price and price with it (minor units).
type voucherQuoteJSON struct {
	Code          string           `json:"code"`
	DiscountMinor int64            `json:"discount_minor"`
	TotalMinor    int64            `json:"total_minor"`
	Currency      string           `json:"currency"`
	Seats         []quotedSeatJSON `json:"seats"`
}

type quotedSeatJSON struct {
	SeatID     string `json:"seat_id"`
	Label      string `json:"label"`
	TicketType string `json:"ticket_type"`
	ListMinor  int64  `json:"list_price_minor"`
	PriceMinor int64  `json:"price_minor"`
}

// apiVoucherQuote previews a voucher on seats of a show before booking: ?code= &seats=
// (comma-separated seat ids) and, as the booking form sends them, tickets_<type>=N
// counts (the rest adult) -> 200 voucherQuoteJSON. Errors: 400, 404 (the show), 422
// VOUCHER_INVALID (the message says why), SEAT_NOT_IN_SHOW, TICKET_TYPE_NOT_OFFERED, 503.
func (d *Deps) apiVoucherQuote(c *fiber.Ctx) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return services.Errorf(services.CodeNotFound, "show not found")
	}
	code := strings.TrimSpace(c.Query("code"))
	if code == "" {
		return invalid("code is required")
	}
	ids, problem := seatIDs(splitIDs(c.Query("seats")))
	if problem == "" && len(ids) == 0 {
		problem = "seats must list the chosen seats' ids, such as seats=101,102"
	}
	if problem != "" {
		return invalid("%s", problem)
	}
	counts, ok := previewTicketCounts(c)
	if !ok {
		return invalid("tickets_<type> must be whole numbers from 0 to 100")
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	q, show, err := d.quoteVoucher(ctx, showID, strings.Clone(code), ids, counts)
	if err != nil {
		return err
	}
	out := voucherQuoteJSON{Code: q.Code, DiscountMinor: q.DiscountMinor, TotalMinor: q.TotalMinor, Currency: show.Currency,
		Seats: make([]quotedSeatJSON, len(q.Seats))}
	for i, s := range q.Seats {
		out.Seats[i] = quotedSeatJSON{SeatID: id(s.SeatID), Label: s.Label, TicketType: s.Type, ListMinor: s.ListMinor, PriceMinor: s.PriceMinor}
	}
	return c.JSON(out)
}

// quoteVoucher prices seats ids of show showID as the booking form asks (counts of
// ticket types, dealt to the seats in their order as an order deals them; the rest
// adult) and asks the vouchers what code saves on them.
func (d *Deps) quoteVoucher(ctx context.Context, showID int64, code string, ids []int64, counts map[string]int) (*vouchers.Quote, *services.Show, error) {
	m, err := d.Shows.SeatMap(ctx, showID)
	if err != nil {
		return nil, nil, err
	}
	seats := make([]vouchers.QuoteSeat, len(ids))
	for i, sid := range ids {
		st, ok := m.Hall.Seat(sid)
		if !ok {
			return nil, nil, services.Errorf(services.CodeSeatNotInShow, "seat %d is not a seat of this show", sid)
		}
		seats[i] = vouchers.QuoteSeat{SeatID: sid, Label: st.Label, Type: services.TicketAdult}
	}
	types := make([]string, 0, len(counts))
	for t := range counts {
		types = append(types, t)
	}
	sort.Strings(types)
	dealt := make([]bool, len(seats))
	for _, t := range types {
		need := counts[t]
		for i := range seats {
			if need == 0 {
				break
			}
			st, _ := m.Hall.Seat(seats[i].SeatID)
			if _, ok := m.Show.TicketPrice(t, st.ZoneCode); ok && !dealt[i] {
				seats[i].Type, dealt[i] = t, true
				need--
			}
		}
		if need > 0 {
			return nil, nil, services.Errorf(services.CodeTicketTypeNotOffered, "%d of the seats chosen cannot be sold as %s", need, t)
		}
	}
	for i := range seats {
		st, _ := m.Hall.Seat(seats[i].SeatID)
		p, ok := m.Show.TicketPrice(seats[i].Type, st.ZoneCode)
		if !ok {
			return nil, nil, services.Errorf(services.CodeTicketTypeNotOffered, "seat %s cannot be sold as %s", st.Label, seats[i].Type)
		}
		seats[i].ListMinor = p
	}
	q, err := d.Vouchers.Quote(ctx, code, m.Show, seats)
	return q, m.Show, err
}

// quoteVoucherBest is quoteVoucher for qty seats of zone not yet chosen (the
// best-available form), typed by counts (every type's count, adding up to qty; nil: all
// adult). Errors: those of quoteVoucher, TICKET_TYPE_NOT_OFFERED for a type or zone the
// show does not sell.
func (d *Deps) quoteVoucherBest(ctx context.Context, showID int64, code, zone string, qty int, counts map[string]int) (*vouchers.Quote, *services.Show, error) {
	show, err := d.Shows.Get(ctx, showID)
	if err != nil {
		return nil, nil, err
	}
	if counts == nil {
		counts = map[string]int{services.TicketAdult: qty}
	}
	types := make([]string, 0, len(counts))
	for t := range counts {
		types = append(types, t)
	}
	sort.Strings(types)
	seats := make([]vouchers.QuoteSeat, 0, qty)
	for _, t := range types {
		p, ok := show.TicketPrice(t, zone)
		if !ok && counts[t] > 0 {
			return nil, nil, services.Errorf(services.CodeTicketTypeNotOffered, "zone %s has no price for %s", zone, t)
		}
		for range counts[t] {
			seats = append(seats, vouchers.QuoteSeat{Type: t, ListMinor: p})
		}
	}
	q, err := d.Vouchers.Quote(ctx, code, show, seats)
	return q, show, err
}

// splitIDs splits a comma-separated list (empty parts dropped), at most one more than
// an order takes so seatIDs can say there are too many.
func splitIDs(s string) [][]byte {
	var out [][]byte
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" && len(out) <= orders.MaxSeatsPerRequest {
			out = append(out, []byte(p))
		}
	}
	return out
}

// previewTicketCounts reads tickets_<type>=N from the query as ticketCountsOf reads the
// form; false for a count that is not a whole number from 0 to 100.
func previewTicketCounts(c *fiber.Ctx) (map[string]int, bool) {
	return ticketCountsArgs(c.Context().QueryArgs())
}
