package views

import (
	"sort"
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
}

// NewExchangeView is the exchange of order o: the seats it keeps (a refunded seat is no
// longer its own, and the exchange moves only the kept ones).
func NewExchangeView(o *services.Order) *ExchangeView {
	v := &ExchangeView{OrderNo: o.OrderNo, Seats: map[int64]bool{}, Zones: map[string]int{}}
	for _, s := range o.KeptSeats() {
		v.Seats[s.SeatID] = true
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
