package views

import (
	"net/url"

	"seatflow/services"
)

// StepThrough is the step-through selection of a show's page: instead of the seat map,
// the buyer picks a zone, then a row, then seats from lists, with ordinary form
// controls (a keyboard and a screen reader need no map). Zone is the chosen zone's code
// and Row the chosen row's letter ("" while not chosen, or not one of the show's).
type StepThrough struct {
	Zone, Row string
}

// StepOption is one choice of a step: its form value, its text, and whether it can be
// chosen (a zone or row with no free seat cannot).
type StepOption struct {
	Value, Text string
	Selected    bool
	Disabled    bool
}

// StepsURL is the show's page with the step-through selection (zone and row "" for
// the first step).
func StepsURL(showID int64, zone, row string) string {
	q := url.Values{"pick": {"list"}}
	if zone != "" {
		q.Set("zone", zone)
	}
	if row != "" {
		q.Set("row", row)
	}
	return ShowURL(showID) + "?" + q.Encode()
}

// stepFree reports whether seat st can be picked: sellable, priced and free.
func (p ShowPageProps) stepFree(st *services.Seat) bool {
	_, priced := p.Map.Show.ZonePrice(st.ZoneCode)
	return priced && st.Sellable() && p.Map.States[st.ID] == services.StateFree
}

// StepZone is the chosen zone's code when it is one of the show's ("" otherwise).
func (p ShowPageProps) StepZone() string {
	if p.Steps == nil {
		return ""
	}
	for _, z := range p.Map.Show.Zones {
		if z.Code == p.Steps.Zone {
			return z.Code
		}
	}
	return ""
}

// StepRow is the chosen row's letter when the chosen zone has seats in it ("" otherwise).
func (p ShowPageProps) StepRow() string {
	zone := p.StepZone()
	if zone == "" || p.Steps.Row == "" {
		return ""
	}
	for _, st := range p.Map.Hall.Seats {
		if st.ZoneCode == zone && rowPart(st.Label) == p.Steps.Row {
			return p.Steps.Row
		}
	}
	return ""
}

// StepZones are the first step's choices: each zone with its price and free seats.
func (p ShowPageProps) StepZones() []StepOption {
	l, s := p.Lang, p.Map.Show
	free := map[string]int{}
	for i := range p.Map.Hall.Seats {
		if st := &p.Map.Hall.Seats[i]; p.stepFree(st) {
			free[st.ZoneCode]++
		}
	}
	chosen := p.StepZone()
	out := make([]StepOption, 0, len(s.Zones))
	for _, z := range s.Zones {
		out = append(out, StepOption{Value: z.Code, Selected: z.Code == chosen, Disabled: free[z.Code] == 0,
			Text: z.Name + " · " + l.Money(z.PriceMinor, s.Currency) + " · " + l.N("seats_left", free[z.Code], nil)})
	}
	return out
}

// StepRows are the second step's choices: the rows with seats of the chosen zone, front
// to back, each with its free seats of the zone.
func (p ShowPageProps) StepRows() []StepOption {
	zone, l := p.StepZone(), p.Lang
	if zone == "" {
		return nil
	}
	var order []string
	free := map[string]int{}
	for i := range p.Map.Hall.Seats {
		st := &p.Map.Hall.Seats[i]
		if st.ZoneCode != zone || !st.Sellable() {
			continue
		}
		r := rowPart(st.Label)
		if _, ok := free[r]; !ok {
			order = append(order, r)
			free[r] = 0
		}
		if p.stepFree(st) {
			free[r]++
		}
	}
	row := p.StepRow()
	out := make([]StepOption, 0, len(order))
	for _, r := range order {
		out = append(out, StepOption{Value: r, Selected: r == row, Disabled: free[r] == 0,
			Text: l.T("steps.row_name", D{"Row": r}) + " · " + l.N("seats_left", free[r], nil)})
	}
	return out
}

// StepSeats are the third step's choices: the free seats of the chosen zone in the
// chosen row, left to right, as cells (Checked for the seats to keep ticked).
func (p ShowPageProps) StepSeats() []SeatCell {
	zone, row := p.StepZone(), p.StepRow()
	if row == "" {
		return nil
	}
	m := newCellMaker(p)
	var out []SeatCell
	for i := range p.Map.Hall.Seats {
		st := &p.Map.Hall.Seats[i]
		if st.ZoneCode == zone && rowPart(st.Label) == row && p.stepFree(st) {
			out = append(out, m.cell(st, st.Row, st.Col))
		}
	}
	return out
}

// StepZoneName is the chosen zone's name.
func (p ShowPageProps) StepZoneName() string {
	for _, z := range p.Map.Show.Zones {
		if z.Code == p.StepZone() {
			return z.Name
		}
	}
	return ""
}

// StepSeatText is a listed seat's label: its place, kind and price ("Row F, seat 7 ·
// ¥50.00").
func (l Lang) StepSeatText(c SeatCell) string {
	return l.SeatName(c.Label) + l.KindSuffix(c.Kind) + " · " + c.Price
}
