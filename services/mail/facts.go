package mail

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"strings"
	"time"

	"seatflow/services"
	"seatflow/services/store"
)

// Facts are what an e-mail tells of, fixed when its event happened: the order and its
// show as the event's transaction saw them (Queue reads them in that transaction and
// stores them with the row, column facts). Every delivery attempt and the development
// mailbox write the e-mail from them, so what it says never follows the order's later
// changes: the "seats held, pay by" e-mail of an order cancelled or paid later still
// reads as it did when it was queued.
type Facts struct {
	Order *OrderFacts `json:"order,omitempty"`
	Show  *ShowFacts  `json:"show,omitempty"`
}

// OrderFacts are an order at its event: number, show, status, total in minor units of
// Currency, payment deadline (UTC), seats and, for a paid order, its ticket code
// (canonical, as ticket_codes keeps it; drawn in the payment's transaction, so the
// ticket e-mail has it; "" for an order of another status or paid before codes were
// drawn at payment).
type OrderFacts struct {
	No         string      `json:"no"`
	ShowID     int64       `json:"show_id"`
	Status     string      `json:"status"`
	TotalMinor int64       `json:"total_minor"`
	Currency   string      `json:"currency"`
	ExpiresAt  time.Time   `json:"expires_at"`
	Seats      []SeatFacts `json:"seats,omitempty"`
	TicketCode string      `json:"ticket_code,omitempty"`
	// Voucher is the code the order used ("" none) and DiscountMinor its saving.
	Voucher       string `json:"voucher,omitempty"`
	DiscountMinor int64  `json:"discount_minor,omitempty"`
}

// SeatFacts are one seat of an order: its label and its zone's code and name.
type SeatFacts struct {
	Label    string `json:"label"`
	Zone     string `json:"zone"`
	ZoneName string `json:"zone_name,omitempty"`
	// TicketType is the seat's ticket type other than adult ("" for adult), with its
	// names in English and zh-Hans.
	TicketType   string `json:"ticket_type,omitempty"`
	TicketName   string `json:"ticket_name,omitempty"`
	TicketNameZh string `json:"ticket_name_zh,omitempty"`
}

// ShowFacts are a show at the event: id, movie title, hall name, start (UTC), and its
// cinema's name and IANA time zone, the zone the e-mail tells its times in (facts
// frozen before cinemas had neither: the renderer's zone then).
type ShowFacts struct {
	ID       int64     `json:"id"`
	Title    string    `json:"title"`
	Hall     string    `json:"hall"`
	StartsAt time.Time `json:"starts_at"`
	Cinema   string    `json:"cinema,omitempty"`
	TimeZone string    `json:"time_zone,omitempty"`
	// SelfRefundUntil is until when (UTC) buyers may cancel and refund a paid order
	// themselves (nil: the show does not allow it).
	SelfRefundUntil *time.Time `json:"self_refund_until,omitempty"`
}

// order is the facts' order as a services.Order (number, show, status, money, deadline
// and seat labels and zones: what a ticket reference is signed over).
func (f *OrderFacts) order() *services.Order {
	o := &services.Order{OrderNo: f.No, ShowID: f.ShowID, Status: f.Status, TotalMinor: f.TotalMinor,
		Currency: f.Currency, ExpiresAt: f.ExpiresAt}
	for _, s := range f.Seats {
		o.Seats = append(o.Seats, services.OrderSeat{Label: s.Label, ZoneCode: s.Zone})
	}
	return o
}

// gatherFacts reads, through q (the event's transaction), the facts of each message: the
// order it names (with its show and, when paid, its ticket code), or for a message about a show alone, the show. A
// message whose order or show q cannot find gets nil; a message that carries its Facts
// keeps them. It runs at most two queries (one for the orders and their seats, one for
// shows) whatever the number of messages, and none when every message carries its Facts.
func gatherFacts(ctx context.Context, q store.Querier, ms []Message) ([]*Facts, error) {
	var nos []string
	var showIDs []int64
	for _, m := range ms {
		switch {
		case m.Facts != nil:
		case m.OrderNo != "":
			nos = append(nos, m.OrderNo)
		case m.ShowID != 0:
			showIDs = append(showIDs, m.ShowID)
		}
	}
	orders := map[string]*Facts{}
	if len(nos) > 0 {
		rows, err := store.MailOrderFacts(ctx, q, nos)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			f := orders[r.OrderNo]
			if f == nil {
				f = &Facts{
					Order: &OrderFacts{No: r.OrderNo, ShowID: r.ShowID, Status: r.Status, TotalMinor: r.TotalMinor,
						Currency: r.Currency, ExpiresAt: r.ExpiresAt.UTC(), Voucher: r.Voucher, DiscountMinor: r.DiscountMinor},
					Show: &ShowFacts{ID: r.ShowID, Title: r.Title, Hall: r.HallName, StartsAt: r.StartsAt.UTC(),
						Cinema: r.CinemaName, TimeZone: r.TimeZone},
				}
				if r.SelfRefundUntilH != nil {
					until := r.StartsAt.UTC().Add(-time.Duration(*r.SelfRefundUntilH) * time.Hour)
					f.Show.SelfRefundUntil = &until
				}
				if r.Status == services.OrderPaid {
					f.Order.TicketCode = r.TicketCode
				}
				orders[r.OrderNo] = f
			}
			if r.Label.Valid {
				sf := SeatFacts{Label: r.Label.String, Zone: r.ZoneCode.String, ZoneName: r.ZoneName.String}
				if t := r.TicketType.String; t != "" && t != services.TicketAdult {
					sf.TicketType, sf.TicketName, sf.TicketNameZh = t, r.TicketName.String, r.TicketNameZh.String
				}
				f.Order.Seats = append(f.Order.Seats, sf)
			}
		}
	}
	shows := map[int64]*ShowFacts{}
	if len(showIDs) > 0 {
		rows, err := store.MailShowFacts(ctx, q, showIDs)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			shows[r.ID] = &ShowFacts{ID: r.ID, Title: r.Title, Hall: r.HallName, StartsAt: r.StartsAt.UTC(),
				Cinema: r.CinemaName, TimeZone: r.TimeZone}
		}
	}
	out := make([]*Facts, len(ms))
	for i, m := range ms {
		switch {
		case m.Facts != nil:
			out[i] = m.Facts
		case m.OrderNo != "":
			out[i] = orders[m.OrderNo]
		case m.ShowID != 0 && shows[m.ShowID] != nil:
			out[i] = &Facts{Show: shows[m.ShowID]}
		}
	}
	return out, nil
}

// ReadFacts returns the facts Queue would store for each message that carries none, as
// q (the event's transaction) sees them: see gatherFacts. Errors: the database's.
func ReadFacts(ctx context.Context, q store.Querier, ms ...Message) ([]*Facts, error) {
	return gatherFacts(ctx, q, ms)
}

// encodeFacts is f as the facts column stores it (nil for NULL).
func encodeFacts(f *Facts) (any, error) {
	if f == nil {
		return nil, nil
	}
	b, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

// decodeFacts reads the facts column of row; nil when the row has none (written before
// facts were stored). Errors: INVALID_REQUEST for a column that is not Facts' JSON.
func decodeFacts(row *Row) (*Facts, error) {
	if row.Facts == nil || *row.Facts == "" {
		return nil, nil
	}
	f := &Facts{}
	if err := json.Unmarshal([]byte(*row.Facts), f); err != nil {
		return nil, services.Errorf(services.CodeInvalidRequest, "e-mail %d: facts are not valid: %v", row.ID, err)
	}
	return f, nil
}

// messageKeyEncoding writes a Message-ID's random part: lower-case base32, no padding
// (letters and digits only, valid in an RFC 5322 dot-atom).
var messageKeyEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// newMessageKey is a fresh random Message-ID part: "m" and 16 random bytes (128 bits)
// in base32, 27 characters.
func newMessageKey() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "m" + strings.ToLower(messageKeyEncoding.EncodeToString(b)), nil
}
