package views

import (
	"time"

	"seatflow/services"
)

// ShowState is a show's sale state as a badge: Label for people, Class for the style.
type ShowState struct {
	Label  string
	Class  string // on-sale, upcoming, sold-out, closed, cancelled
	OnSale bool   // orders are accepted now
	Reason string // a sentence saying why orders are not accepted (empty when they are)
}

// StateOf tells a show's sale state at now (API.md: on sale when status is on_sale and
// now is inside the sale window, and the show has not started), with times in the
// cinema's zone and the label and reason in l. A show not on sale yet always says when
// its sale opens, with SaleOpensText. Without the seat map it cannot tell held from
// sold: no free seat reads "no seats free" (ShowPageProps.State tells which).
func (l Lang) StateOf(s *services.Show, now time.Time, loc *time.Location) ShowState {
	switch {
	case s.Status == services.ShowCancelled:
		return ShowState{Label: l.T("state.cancelled", nil), Class: "cancelled", Reason: l.T("state.cancelled_reason", nil)}
	case !now.Before(s.StartsAt):
		return ShowState{Label: l.T("state.started", nil), Class: "closed", Reason: l.T("state.started_reason", D{"When": l.DayTime(s.StartsAt, loc)})}
	case s.Status == services.ShowClosed || !now.Before(s.SaleClosesAt):
		return ShowState{Label: l.T("state.closed", nil), Class: "closed", Reason: l.T("state.closed_reason", nil)}
	case (s.Status == services.ShowScheduled || s.Status == services.ShowOnSale) && now.Before(s.SaleOpensAt):
		opens := l.SaleOpensText(s, loc)
		return ShowState{Label: opens, Class: "upcoming", Reason: l.T("state.opens_reason", D{"Opens": sentence(opens)})}
	case s.Status != services.ShowOnSale:
		return ShowState{Label: l.T("state.not_on_sale", nil), Class: "upcoming", Reason: l.T("state.not_on_sale_reason", D{"Opens": l.SaleOpensText(s, loc)})}
	case s.SeatsLeft <= 0:
		return ShowState{Label: l.T("state.no_seats", nil), Class: "sold-out", Reason: l.T("state.no_seats_reason", nil)}
	}
	return ShowState{Label: l.T("state.on_sale", nil), Class: "on-sale", OnSale: true}
}

// SaleOpensText is the one phrase for when a show's sale opens, in l: "sale opens Mon
// 30 Nov, 19:40" ("11月30日 周一 19:40 开售"; cinema time).
func (l Lang) SaleOpensText(s *services.Show, loc *time.Location) string {
	return l.T("state.sale_opens", D{"When": l.DayTime(s.SaleOpensAt, loc)})
}

// sentence capitalises the first letter.
func sentence(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

// StateWithMap is StateOf refined by the show's seat map (mapState): one wording for a
// show with no free seat wherever it is shown.
func (l Lang) StateWithMap(s *services.Show, now time.Time, loc *time.Location, m *ShowSeatMap, hold time.Duration) ShowState {
	return mapState(l, l.StateOf(s, now, loc), m, hold)
}

// mapState refines a show with no free seat from its seat map: "all seats held" while
// any seat is only held (they may come back when holds end, within hold), "sold out"
// when every seat is paid.
func mapState(l Lang, st ShowState, m *ShowSeatMap, hold time.Duration) ShowState {
	if st.Class != "sold-out" {
		return st
	}
	for _, state := range m.States {
		if state == services.StateHeld {
			when := l.T("state.soon", nil)
			if hold > 0 {
				when = l.T("state.within", D{"Minutes": l.Minutes(hold)})
			}
			return ShowState{Label: l.T("state.held_out", nil), Class: "held-out",
				Reason: l.T("state.held_out_reason", D{"When": when})}
		}
	}
	return ShowState{Label: l.T("state.sold_out", nil), Class: "sold-out", Reason: l.T("state.sold_out_reason", nil)}
}
