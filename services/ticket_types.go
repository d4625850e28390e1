package services

import (
	"sort"
	"time"
)

// TicketAdult is the ticket type every show sells, at its zone prices (Show.Zones).
const TicketAdult = "adult"

// TicketType is what a seat is sold as (adult, child, senior, student): Code
// ([a-z][a-z0-9_]{0,31}), a name per language of the UI (English, zh-Hans) and an
// optional note for the door ("ID required at the door"). adult is built in.
type TicketType struct {
	Code      string    `db:"code"`
	NameEn    string    `db:"name_en"`
	NameZh    string    `db:"name_zh"`
	NoteEn    string    `db:"note_en"`
	NoteZh    string    `db:"note_zh"`
	CreatedAt time.Time `db:"created_at"`
}

// AdultTicketType is the built-in type adult.
var AdultTicketType = TicketType{Code: TicketAdult, NameEn: "Adult", NameZh: "成人"}

// Name returns the type's name in lang ("zh-Hans" or anything else for English); a
// missing translation falls back to English.
func (t TicketType) Name(lang string) string {
	if lang == "zh-Hans" && t.NameZh != "" {
		return t.NameZh
	}
	return t.NameEn
}

// Note returns the type's note for the door in lang ("" none), falling back to English.
func (t TicketType) Note(lang string) string {
	if lang == "zh-Hans" && t.NoteZh != "" {
		return t.NoteZh
	}
	return t.NoteEn
}

// TicketPrice is the price of a ticket type other than adult in a zone of a show, in
// minor units of the show's currency.
type TicketPrice struct {
	Type       string `db:"type_code"`
	Zone       string `db:"zone_code"`
	PriceMinor int64  `db:"price_minor"`
}

// TicketPrice returns the show's price of ticket type typ in zone (minor units), or
// false when the show does not sell that pair: adult is the zone price.
func (s *Show) TicketPrice(typ, zone string) (int64, bool) {
	if typ == TicketAdult {
		return s.ZonePrice(zone)
	}
	for _, p := range s.TicketPrices {
		if p.Type == typ && p.Zone == zone {
			return p.PriceMinor, true
		}
	}
	return 0, false
}

// TicketTypeCodes returns the codes of the types the show sells: adult first, then the
// others by code.
func (s *Show) TicketTypeCodes() []string {
	seen := map[string]bool{TicketAdult: true}
	out := []string{TicketAdult}
	var rest []string
	for _, p := range s.TicketPrices {
		if !seen[p.Type] {
			seen[p.Type] = true
			rest = append(rest, p.Type)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// PriceCard is a named set of ticket type × zone prices of one cinema (minor units, the
// cinema's currency) that staff apply to shows; times UTC. Applying copies the prices
// into each show, so a later edit of the card changes only later applications.
type PriceCard struct {
	ID        int64         `db:"id"`
	CinemaID  int64         `db:"cinema_id"`
	Name      string        `db:"name"`
	CreatedAt time.Time     `db:"created_at"`
	UpdatedAt time.Time     `db:"updated_at"`
	Prices    []TicketPrice `db:"-"` // by type (adult first) and zone
}

// DealTicketCounts gives each seat of an order of chosen seats its ticket type from
// counts (how many of each type other than adult; zones are the seats' zone codes, in
// the order booked): each type, by code, goes to the seats in order whose zone the
// show sells it in and that no other type took; the rest are adult. When a type finds
// too few such seats it returns that type and how many it lacks (the seats it could
// deal keep their type). The caller checks that the counts add up to at most the seats.
func (s *Show) DealTicketCounts(zones []string, counts map[string]int) (types []string, shortType string, short int) {
	types = make([]string, len(zones))
	for i := range types {
		types[i] = TicketAdult
	}
	codes := make([]string, 0, len(counts))
	for t := range counts {
		codes = append(codes, t)
	}
	sort.Strings(codes)
	dealt := make([]bool, len(zones))
	for _, t := range codes {
		need := counts[t]
		for i, z := range zones {
			if need <= 0 {
				break
			}
			if dealt[i] {
				continue
			}
			if _, ok := s.TicketPrice(t, z); ok {
				types[i], dealt[i] = t, true
				need--
			}
		}
		if need > 0 && shortType == "" {
			shortType, short = t, need
		}
	}
	return types, shortType, short
}
