package catalog

import (
	"context"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/store"
)

// TicketPriceChange prices a ticket type in a zone of a show (minor units); a nil
// PriceMinor stops selling that pair (never adult's: adult is the zone price).
type TicketPriceChange struct {
	Type       string
	Zone       string
	PriceMinor *int64
}

// checkTicketPrices refuses a pair named twice, an unknown ticket type, a zone not of
// hall (nil: not checked), a price outside 0..MaxPriceMinor, and a nil price unless
// stopping is allowed (never for adult). Errors: INVALID_REQUEST, UNAVAILABLE.
func (c *Catalog) checkTicketPrices(ctx context.Context, ps []TicketPriceChange, hall *services.Hall, stopping bool) error {
	seen := map[[2]string]bool{}
	for _, p := range ps {
		if p.Type == "" || p.Zone == "" {
			return services.Errorf(services.CodeInvalidRequest, "every ticket price needs a type and a zone")
		}
		k := [2]string{p.Type, p.Zone}
		if seen[k] {
			return services.Errorf(services.CodeInvalidRequest, "ticket type %q in zone %q is priced twice", p.Type, p.Zone)
		}
		seen[k] = true
		if p.PriceMinor == nil {
			if !stopping || p.Type == services.TicketAdult {
				return services.Errorf(services.CodeInvalidRequest, "ticket type %q in zone %q needs a price (adult is sold in every zone)", p.Type, p.Zone)
			}
		} else if *p.PriceMinor < 0 || *p.PriceMinor > MaxPriceMinor {
			return services.Errorf(services.CodeInvalidRequest, "the price of %q in zone %q must be from 0 to %d minor units", p.Type, p.Zone, MaxPriceMinor)
		}
		if _, ok, err := c.TicketType(ctx, p.Type); err != nil {
			return err
		} else if !ok {
			return services.Errorf(services.CodeInvalidRequest, "unknown ticket type %q", p.Type)
		}
		if hall != nil {
			if _, ok := zoneOf(hall, p.Zone); !ok {
				return services.Errorf(services.CodeInvalidRequest, "zone %q is not a zone of hall %s", p.Zone, hall.Name)
			}
		}
	}
	return nil
}

// zoneOf returns the hall's zone with code.
func zoneOf(hall *services.Hall, code string) (services.Zone, bool) {
	for _, z := range hall.Zones {
		if z.Code == code {
			return z, true
		}
	}
	return services.Zone{}, false
}

// setTicketPrices writes ps into show s of hall inside tx (adult: the zone price; nil:
// the pair no longer sold) and keeps s's prices in line. The caller checked ps.
func setTicketPrices(ctx context.Context, tx *sqlx.Tx, s *services.Show, hall *services.Hall, ps []TicketPriceChange) error {
	for _, p := range ps {
		z, _ := zoneOf(hall, p.Zone)
		switch {
		case p.Type == services.TicketAdult:
			if err := store.SetShowPrice(ctx, tx, s.ID, z.ID, *p.PriceMinor); err != nil {
				return err
			}
			setPrice(s, z, *p.PriceMinor)
		case p.PriceMinor == nil:
			if err := store.DeleteShowTicketPrice(ctx, tx, s.ID, p.Type, z.ID); err != nil {
				return err
			}
			setTicketPrice(s, p.Type, p.Zone, nil)
		default:
			if err := store.SetShowTicketPrice(ctx, tx, s.ID, p.Type, z.ID, *p.PriceMinor); err != nil {
				return err
			}
			setTicketPrice(s, p.Type, p.Zone, p.PriceMinor)
		}
	}
	return nil
}

// setTicketPrice sets (nil: removes) s's price of typ in zone.
func setTicketPrice(s *services.Show, typ, zone string, price *int64) {
	for i, p := range s.TicketPrices {
		if p.Type == typ && p.Zone == zone {
			if price == nil {
				s.TicketPrices = append(s.TicketPrices[:i], s.TicketPrices[i+1:]...)
			} else {
				s.TicketPrices[i].PriceMinor = *price
			}
			return
		}
	}
	if price != nil {
		s.TicketPrices = append(s.TicketPrices, services.TicketPrice{Type: typ, Zone: zone, PriceMinor: *price})
	}
}
