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
// cinema's zone. A show not on sale yet always says when its sale opens, with
// SaleOpensText. Without the seat map it cannot tell held from sold: no free seat reads
// "no seats free" (ShowPageProps.State tells which).
func StateOf(s *services.Show, now time.Time, loc *time.Location) ShowState {
	switch {
	case s.Status == services.ShowCancelled:
		return ShowState{Label: "cancelled", Class: "cancelled", Reason: "This show was cancelled."}
	case !now.Before(s.StartsAt):
		return ShowState{Label: "started", Class: "closed", Reason: "This show started at " + DayTime(s.StartsAt, loc) + "; it can no longer be booked."}
	case s.Status == services.ShowClosed || !now.Before(s.SaleClosesAt):
		return ShowState{Label: "closed", Class: "closed", Reason: "Sales for this show have closed."}
	case (s.Status == services.ShowScheduled || s.Status == services.ShowOnSale) && now.Before(s.SaleOpensAt):
		opens := SaleOpensText(s, loc)
		return ShowState{Label: opens, Class: "upcoming", Reason: sentence(opens) + "."}
	case s.Status != services.ShowOnSale:
		return ShowState{Label: "not on sale yet", Class: "upcoming", Reason: "Not on sale yet (" + SaleOpensText(s, loc) + ")."}
	case s.SeatsLeft <= 0:
		return ShowState{Label: "no seats free", Class: "sold-out", Reason: "No seats are free right now."}
	}
	return ShowState{Label: "on sale", Class: "on-sale", OnSale: true}
}

// SaleOpensText is the one phrase for when a show's sale opens: "sale opens Mon 30 Nov,
// 19:40" (cinema time).
func SaleOpensText(s *services.Show, loc *time.Location) string {
	return "sale opens " + DayTime(s.SaleOpensAt, loc)
}

// sentence capitalises the first letter.
func sentence(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

// mapState refines a show with no free seat from its seat map: "all seats held" while
// any seat is only held (they may come back when holds end, within hold), "sold out"
// when every seat is paid.
func mapState(st ShowState, m *services.SeatMap, hold time.Duration) ShowState {
	if st.Class != "sold-out" {
		return st
	}
	for _, state := range m.States {
		if state == services.StateHeld {
			when := "soon"
			if hold > 0 {
				when = "in up to " + Minutes(hold)
			}
			return ShowState{Label: "all seats held", Class: "held-out",
				Reason: "All seats are held by buyers who have not paid yet — seats may come back " + when + "."}
		}
	}
	return ShowState{Label: "sold out", Class: "sold-out", Reason: "This show is sold out: every seat is paid for."}
}
