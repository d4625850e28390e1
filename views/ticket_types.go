package views

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"

	"seatflow/services"
)

// TicketTypeSource lists the ticket types, adult first (the catalog's cached list).
type TicketTypeSource func(ctx context.Context) ([]services.TicketType, error)

var ticketTypeSource atomic.Pointer[TicketTypeSource]

// SetTicketTypeSource sets where the pages read ticket type names and door notes from
// (the app sets it once at start; unset, a type is named by its code and adult by its
// built-in names).
func SetTicketTypeSource(src TicketTypeSource) { ticketTypeSource.Store(&src) }

// ticketType returns the type with code (adult built in; an unknown code names itself).
func ticketType(ctx context.Context, code string) services.TicketType {
	if code == "" || code == services.TicketAdult {
		return services.AdultTicketType
	}
	if src := ticketTypeSource.Load(); src != nil {
		if ts, err := (*src)(ctx); err == nil {
			for _, t := range ts {
				if t.Code == code {
					return t
				}
			}
		}
	}
	return services.TicketType{Code: code, NameEn: code, NameZh: code}
}

// TicketTypeName is the name of ticket type code in the page's language ("Child", "儿童").
func TicketTypeName(ctx context.Context, code string) string {
	return ticketType(ctx, code).Name(string(LangOf(ctx)))
}

// TicketTypeNote is the door's note of ticket type code in the page's language ("" none).
func TicketTypeNote(ctx context.Context, code string) string {
	return ticketType(ctx, code).Note(string(LangOf(ctx)))
}

// TicketChoice is a ticket type a show sells as the booking form offers it: its code,
// name and note, and its price in each zone that sells it (Prices, worded), PriceMinor
// by zone code for the form's script.
type TicketChoice struct {
	Code       string
	Name       string
	Note       string
	Prices     string
	PriceMinor map[string]int64
}

// TicketChoices returns the types s sells, adult first, as the booking form offers
// them; nil when s sells adult only (the form then asks nothing).
func TicketChoices(ctx context.Context, s *services.Show) []TicketChoice {
	codes := s.TicketTypeCodes()
	if len(codes) < 2 {
		return nil
	}
	l := LangOf(ctx)
	out := make([]TicketChoice, 0, len(codes))
	for _, code := range codes {
		t := ticketType(ctx, code)
		c := TicketChoice{Code: code, Name: t.Name(string(l)), Note: t.Note(string(l)), PriceMinor: map[string]int64{}}
		var parts []string
		for _, z := range s.Zones {
			if p, ok := s.TicketPrice(code, z.Code); ok {
				c.PriceMinor[z.Code] = p
				parts = append(parts, z.Name+" "+l.Money(p, s.Currency))
			}
		}
		c.Prices = strings.Join(parts, " · ")
		out = append(out, c)
	}
	return out
}

// TicketPricesJSON is the choices' prices by type code and zone code, for the booking
// form's script ({"child":{"standard":2500}}).
func TicketPricesJSON(cs []TicketChoice) string {
	m := make(map[string]map[string]int64, len(cs))
	for _, c := range cs {
		m[c.Code] = c.PriceMinor
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// TicketCode is a seat's ticket type code (adult for a seat sold before ticket types).
func TicketCode(code string) string {
	if code == "" {
		return services.TicketAdult
	}
	return code
}

// DoorSeat is a seat as the door shows it: its label and, for a ticket type other than
// adult, the type's code, name and door note in the page's language ("" for adult, or
// no note).
type DoorSeat struct {
	Label, Code, Type, Note string
}

// DoorSeatOf is seat s as the door shows it ("A3", "Child", "ID required at the door").
func DoorSeatOf(ctx context.Context, s services.OrderSeat) DoorSeat {
	d := DoorSeat{Label: s.Label}
	if code := TicketCode(s.TicketType); code != services.TicketAdult {
		d.Code, d.Type, d.Note = code, TicketTypeName(ctx, code), TicketTypeNote(ctx, code)
	}
	return d
}
