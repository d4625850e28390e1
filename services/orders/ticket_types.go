package orders

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"seatflow/services"
)

// checkTicketShape refuses tickets and ticket counts that do not fit the request (API.md
// "Ticket types and price cards"): tickets only name chosen seats of the request,
// ticket counts come only with best available, are not negative and add up to the
// quantity. Errors: INVALID_REQUEST.
func (r *CreateOrderRequest) checkTicketShape() error {
	if len(r.Tickets) > 0 {
		if len(r.SeatIDs) == 0 {
			return services.Errorf(services.CodeInvalidRequest, "tickets name chosen seats: send seat_ids (or ticket_counts with zone and quantity)")
		}
		in := make(map[int64]bool, len(r.SeatIDs))
		for _, id := range r.SeatIDs {
			in[id] = true
		}
		for id := range r.Tickets {
			if !in[id] {
				return services.Errorf(services.CodeInvalidRequest, "tickets names seat %d, which seat_ids does not list", id)
			}
		}
	}
	if len(r.TicketCounts) > 0 {
		if len(r.SeatIDs) > 0 {
			return services.Errorf(services.CodeInvalidRequest, "ticket_counts go with zone and quantity; name chosen seats' types in tickets")
		}
		sum := 0
		for typ, n := range r.TicketCounts {
			if n < 0 || n > MaxSeatsPerRequest {
				return services.Errorf(services.CodeInvalidRequest, "ticket_counts of %q must be a whole number from 0 to %d", typ, MaxSeatsPerRequest)
			}
			sum += n
		}
		if sum != r.Quantity {
			return services.Errorf(services.CodeInvalidRequest, "ticket_counts add up to %d, not the quantity %d", sum, r.Quantity)
		}
	}
	return nil
}

// ticketTypesAsked returns the types the request names, adult first, then by code.
func (r *CreateOrderRequest) ticketTypesAsked() []string {
	seen := map[string]bool{}
	for _, t := range r.Tickets {
		seen[t] = true
	}
	for t, n := range r.TicketCounts {
		if n > 0 {
			seen[t] = true
		}
	}
	out := make([]string, 0, len(seen))
	for t := range seen {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool {
		if (out[i] == services.TicketAdult) != (out[j] == services.TicketAdult) {
			return out[i] == services.TicketAdult
		}
		return out[i] < out[j]
	})
	return out
}

// ticketHash is the request's tickets and ticket counts in a fixed order, for the
// Idempotency-Key's comparison ("" when it names none: the hash of a request without
// types is as before).
func (r *CreateOrderRequest) ticketHash() string {
	if len(r.Tickets) == 0 && len(r.TicketCounts) == 0 {
		return ""
	}
	var parts []string
	for id, t := range r.Tickets {
		parts = append(parts, strconv.FormatInt(id, 10)+"="+t)
	}
	for t, n := range r.TicketCounts {
		parts = append(parts, fmt.Sprintf("%s*%d", t, n))
	}
	sort.Strings(parts)
	return ";tickets=" + strings.Join(parts, ",")
}

// checkTicketTypes refuses a type that does not exist (INVALID_REQUEST), and a type the
// show does not sell in a chosen seat's zone or in best available's zone
// (TICKET_TYPE_NOT_OFFERED, naming the chosen seats). It reads the catalog's cached
// types only: no Redis call. Errors: INVALID_REQUEST, TICKET_TYPE_NOT_OFFERED, UNAVAILABLE.
func (o *Orders) checkTicketTypes(ctx context.Context, c *creation) error {
	if len(c.req.SeatTicketCounts) > 0 {
		if err := dealTicketTypes(c); err != nil {
			return err
		}
	}
	req := c.req
	for _, t := range req.ticketTypesAsked() {
		if _, ok, err := o.catalog.TicketType(ctx, t); err != nil {
			return err
		} else if !ok {
			return services.Errorf(services.CodeInvalidRequest, "unknown ticket type %q", t)
		}
		if len(req.SeatIDs) == 0 {
			if _, ok := c.show.TicketPrice(t, req.Zone); !ok {
				return services.Errorf(services.CodeTicketTypeNotOffered, "this show does not sell %s tickets in zone %s", t, req.Zone)
			}
		}
	}
	var bad []string
	for _, id := range req.SeatIDs {
		s, _ := c.hall.Seat(id)
		if _, ok := c.show.TicketPrice(seatType(req, id), s.ZoneCode); !ok {
			bad = append(bad, s.Label)
		}
	}
	if len(bad) > 0 {
		return &services.Error{Code: services.CodeTicketTypeNotOffered, Seats: bad,
			Message: "this show does not sell the ticket type asked for at " + strings.Join(bad, ", ")}
	}
	return nil
}

// seatType is the ticket type the request asks for a chosen seat (adult unless named).
func seatType(req CreateOrderRequest, id int64) string {
	if t, ok := req.Tickets[id]; ok {
		return t
	}
	return services.TicketAdult
}

// typesOf returns the ticket type of each of ids (the seats held, in their order): the
// chosen seats' types, or best available's counts dealt out adult first, then by code.
func typesOf(req CreateOrderRequest, ids []int64) []string {
	out := make([]string, len(ids))
	if len(req.SeatIDs) > 0 || len(req.TicketCounts) == 0 {
		for i, id := range ids {
			out[i] = seatType(req, id)
		}
		return out
	}
	i := 0
	for _, t := range req.ticketTypesAsked() {
		for n := 0; n < req.TicketCounts[t] && i < len(out); n++ {
			out[i] = t
			i++
		}
	}
	for ; i < len(out); i++ {
		out[i] = services.TicketAdult
	}
	return out
}

// dealTicketTypes turns the booking page's SeatTicketCounts into Tickets: each type's
// count goes to the chosen seats, in their order, whose zone sells it and that no other
// type took (types by code). Errors: INVALID_REQUEST (a count below 0, more than the
// seats), TICKET_TYPE_NOT_OFFERED (too few seats in zones that sell a type).
func dealTicketTypes(c *creation) error {
	req := &c.req
	if len(req.Tickets) > 0 || len(req.SeatIDs) == 0 {
		return services.Errorf(services.CodeInvalidRequest, "ticket counts for chosen seats go without tickets and with seat_ids")
	}
	sum := 0
	for t, n := range req.SeatTicketCounts {
		if n < 0 {
			return services.Errorf(services.CodeInvalidRequest, "the count of %q must not be negative", t)
		}
		sum += n
	}
	if sum > len(req.SeatIDs) {
		return services.Errorf(services.CodeInvalidRequest, "%d tickets of other types than adult for %d seats", sum, len(req.SeatIDs))
	}
	zones := make([]string, len(req.SeatIDs))
	for i, id := range req.SeatIDs {
		s, _ := c.hall.Seat(id)
		zones[i] = s.ZoneCode
	}
	types, shortType, short := c.show.DealTicketCounts(zones, req.SeatTicketCounts)
	if short > 0 {
		return services.Errorf(services.CodeTicketTypeNotOffered, "%d of the seats chosen cannot be sold as %s", short, shortType)
	}
	req.Tickets = make(map[int64]string, len(types))
	for i, id := range req.SeatIDs {
		if types[i] != services.TicketAdult {
			req.Tickets[id] = types[i]
		}
	}
	return nil
}
