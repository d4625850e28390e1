package catalog

import (
	"context"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/store"
)

// ticketCode is the form of a ticket type's code (API.md "Ticket types and price cards").
var ticketCode = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

// MaxTicketTypeName and MaxTicketTypeNote are the longest name and door note of a ticket
// type, in characters (the widths of their columns).
const (
	MaxTicketTypeName = 100
	MaxTicketTypeNote = 200
)

// TicketTypeInput is a ticket type as staff create it: a code ([a-z][a-z0-9_]{0,31}), an
// English name (1..MaxTicketTypeName characters) and optionally a zh-Hans name (English
// when empty) and a note for the door in each language (0..MaxTicketTypeNote).
type TicketTypeInput struct {
	Code   string `json:"code"`
	Name   string `json:"name"`
	NameZh string `json:"name_zh"`
	Note   string `json:"note"`
	NoteZh string `json:"note_zh"`
}

// TicketTypes lists every ticket type, adult (built in) first, then by code (cached for
// CinemaCacheTTL; never modify the slice). Errors: UNAVAILABLE.
func (c *Catalog) TicketTypes(ctx context.Context) ([]services.TicketType, error) {
	return c.ticketTypes.Get(ctx, 0)
}

func (c *Catalog) loadTicketTypes(ctx context.Context, _ int) ([]services.TicketType, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	ts, err := store.TicketTypes(ctx, c.db)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	return append([]services.TicketType{services.AdultTicketType}, ts...), nil
}

// TicketType returns the type with code from TicketTypes, or false when there is none
// (a type another process added shows within CinemaCacheTTL; a miss never reads the
// database again, so unknown codes cost buyers' requests no query). Errors: UNAVAILABLE.
func (c *Catalog) TicketType(ctx context.Context, code string) (services.TicketType, bool, error) {
	ts, err := c.TicketTypes(ctx)
	if err != nil {
		return services.TicketType{}, false, err
	}
	for _, t := range ts {
		if t.Code == code {
			return t, true, nil
		}
	}
	return services.TicketType{}, false, nil
}

// checkTicketType trims and checks a ticket type as staff write it. Errors:
// INVALID_REQUEST.
func checkTicketType(in TicketTypeInput) (TicketTypeInput, error) {
	in.Code = strings.TrimSpace(in.Code)
	if !ticketCode.MatchString(in.Code) {
		return in, services.Errorf(services.CodeInvalidRequest, "code must be a lower-case letter then up to 31 lower-case letters, digits or _")
	}
	fields := []struct {
		name string
		v    *string
		min  int
		max  int
	}{{"name", &in.Name, 1, MaxTicketTypeName}, {"name_zh", &in.NameZh, 0, MaxTicketTypeName},
		{"note", &in.Note, 0, MaxTicketTypeNote}, {"note_zh", &in.NoteZh, 0, MaxTicketTypeNote}}
	for _, f := range fields {
		*f.v = strings.TrimSpace(*f.v)
		if n := utf8.RuneCountInString(*f.v); n < f.min || n > f.max || !utf8.ValidString(*f.v) {
			return in, services.Errorf(services.CodeInvalidRequest, "%s must be %d to %d characters", f.name, f.min, f.max)
		}
		if err := services.CheckText(f.name, *f.v, services.SingleLine); err != nil {
			return in, err
		}
	}
	return in, nil
}

// CreateTicketType stores a ticket type written by actorID, audited as
// "ticket_type.create", and returns it. A new type is sold by no show until a show (or
// a price card applied to it) prices it. Errors: INVALID_REQUEST, CONFLICT (the code is
// taken, adult included), UNAVAILABLE.
func (w *CatalogWriter) CreateTicketType(ctx context.Context, actorID int64, in TicketTypeInput) (services.TicketType, error) {
	in, err := checkTicketType(in)
	if err != nil {
		return services.TicketType{}, err
	}
	if in.Code == services.TicketAdult {
		return services.TicketType{}, services.Errorf(services.CodeConflict, "ticket type %q already exists", in.Code)
	}
	t := services.TicketType{Code: in.Code, NameEn: in.Name, NameZh: in.NameZh, NoteEn: in.Note, NoteZh: in.NoteZh,
		CreatedAt: w.clock.Now().UTC().Truncate(time.Microsecond)}
	if t.NameZh == "" {
		t.NameZh = t.NameEn
	}
	ctx2, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	err = store.InTx(ctx2, w.db, func(tx *sqlx.Tx) error {
		if err := store.InsertTicketType(ctx2, tx, t); err != nil {
			return err
		}
		return w.audit.Record(ctx2, tx, actorID, "ticket_type.create", "ticket_type", t.Code, nil, in)
	})
	if store.DuplicateOn(err, store.TicketTypeIndex) {
		return services.TicketType{}, services.Errorf(services.CodeConflict, "ticket type %q already exists", in.Code)
	}
	if err != nil {
		return services.TicketType{}, asServiceError(err)
	}
	w.catalog.ForgetTicketTypes()
	return t, nil
}

// ForgetTicketTypes drops this process's cached list of ticket types: the next read loads
// it afresh (after the table was written outside this process's catalog).
func (c *Catalog) ForgetTicketTypes() { c.ticketTypes.Forget(0) }
