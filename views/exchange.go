package views

import (
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"seatflow/services"
)

// ExchangeView is an order changing its seats on the seat picker: its number, its live
// seats (ids; shown as its own, ticked while kept) and their zones.
type ExchangeView struct {
	OrderNo string
	Seats   map[int64]bool
	Count   int
	// Zones counts the order's seats by zone code: the new seats must match it.
	Zones map[string]int
	// Kept are the order's live seats in its order: their ticket types and prices go
	// with the exchange (ExchangePrices).
	Kept []services.OrderSeat
}

// ExchangePrices prices the seats picked on an exchange as the exchange will
// (services/orders matchExchange): a seat of the order that stays keeps its ticket type
// and price; every other picked seat takes, zone by zone in order, those of an order
// seat let go; a seat beyond them keeps its list price. cells are in the hall's order
// and are changed in place.
func (x *ExchangeView) ExchangePrices(cells []SeatCell, currency string) {
	own := map[string]services.OrderSeat{}
	picked := map[string]bool{}
	for _, c := range cells {
		picked[c.ID] = true
	}
	free := map[string][]services.OrderSeat{}
	for _, s := range x.Kept {
		id := strconv.FormatInt(s.SeatID, 10)
		own[id] = s
		if !picked[id] {
			free[s.ZoneCode] = append(free[s.ZoneCode], s)
		}
	}
	for i := range cells {
		c := &cells[i]
		s, ok := own[c.ID]
		if !ok && len(free[c.ZoneCode]) > 0 {
			s, ok = free[c.ZoneCode][0], true
			free[c.ZoneCode] = free[c.ZoneCode][1:]
		}
		if !ok {
			continue
		}
		c.PriceMinor, c.Price, c.Ticket = s.PriceMinor, Money(s.PriceMinor, currency), ""
		if t := TicketCode(s.TicketType); t != services.TicketAdult {
			c.Ticket = t
		}
	}
}

// NewExchangeView is the exchange of order o: the seats it keeps (a refunded seat is no
// longer its own, and the exchange moves only the kept ones).
func NewExchangeView(o *services.Order) *ExchangeView {
	v := &ExchangeView{OrderNo: o.OrderNo, Seats: map[int64]bool{}, Zones: map[string]int{}}
	for _, s := range o.KeptSeats() {
		v.Seats[s.SeatID] = true
		v.Kept = append(v.Kept, s)
		v.Zones[s.ZoneCode]++
		v.Count++
	}
	return v
}

// ExchangeRule says what to pick, in l: "Pick 2 seats: 1 Standard, 1 Premium." (zones
// by name, in the show's zone order).
func (p ShowPageProps) ExchangeRule() string {
	l, x := p.Lang, p.Exchange
	var parts []string
	seen := map[string]bool{}
	for _, z := range p.Map.Show.Zones {
		if n := x.Zones[z.Code]; n > 0 {
			parts = append(parts, l.T("exchange.zone_count", D{"N": n, "Zone": z.Name}))
			seen[z.Code] = true
		}
	}
	var rest []string
	for code, n := range x.Zones {
		if !seen[code] {
			rest = append(rest, l.T("exchange.zone_count", D{"N": n, "Zone": code}))
		}
	}
	sort.Strings(rest)
	parts = append(parts, rest...)
	return l.N("exchange.rule", x.Count, D{"Zones": strings.Join(parts, l.T("list.sep", nil))})
}

// ExchangeSeatsJSON is Kept for static/js/seatmap.js, which prices the picked seats as
// ExchangePrices does: [{"id": "<seat id>", "zone": "<zone code>", "price": <minor
// units>, "name": "<ticket type name, \"\" for adult>"}].
func ExchangeSeatsJSON(ctx context.Context, x *ExchangeView) string {
	type seat struct {
		ID    string `json:"id"`
		Zone  string `json:"zone"`
		Price int64  `json:"price"`
		Name  string `json:"name"`
	}
	out := make([]seat, 0, len(x.Kept))
	for _, s := range x.Kept {
		name := ""
		if t := TicketCode(s.TicketType); t != services.TicketAdult {
			name = TicketTypeName(ctx, t)
		}
		out = append(out, seat{ID: strconv.FormatInt(s.SeatID, 10), Zone: s.ZoneCode, Price: s.PriceMinor, Name: name})
	}
	b, _ := json.Marshal(out)
	return string(b)
}
