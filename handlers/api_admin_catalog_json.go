package handlers

import (
	"encoding/json"
	"time"

	"seatflow/services"
	"seatflow/services/catalog"
)

// JSON shapes and body parsers of the admin catalog endpoints (API.md, Admin, Catalog).

// adminHallJSON is a hall as GET /api/v1/admin/halls lists it.
type adminHallJSON struct {
	ID       string         `json:"id"`
	CinemaID string         `json:"cinema_id"`
	Name     string         `json:"name"`
	Rows     int            `json:"rows"`
	Cols     int            `json:"cols"`
	Seats    int            `json:"seats"`
	Zones    []hallZoneJSON `json:"zones"`
}

type hallZoneJSON struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

func adminHallOut(h *catalog.HallSummary) adminHallJSON {
	out := adminHallJSON{ID: id(h.ID), CinemaID: id(h.CinemaID), Name: h.Name, Rows: h.Rows, Cols: h.Cols, Seats: h.Seats, Zones: make([]hallZoneJSON, len(h.Zones))}
	for i, z := range h.Zones {
		out.Zones[i] = hallZoneJSON{Code: z.Code, Name: z.Name}
	}
	return out
}

func movieOut(m *services.Movie) movieJSON {
	return movieJSON{ID: id(m.ID), Title: m.Title, RuntimeMin: m.RuntimeMin}
}

// parseMovieBody reads {"title": string, "runtime_min": integer}. Errors: INVALID_REQUEST.
func parseMovieBody(body []byte) (string, int, error) {
	var in struct {
		Title      json.RawMessage `json:"title"`
		RuntimeMin json.RawMessage `json:"runtime_min"`
	}
	if err := decodeObject(body, &in, `{"title":"Dune","runtime_min":155}`); err != nil {
		return "", 0, err
	}
	var title string
	if !isSet(in.Title) || json.Unmarshal(in.Title, &title) != nil {
		return "", 0, invalid("title must be a string")
	}
	n, err := jsonInt(in.RuntimeMin)
	if !isSet(in.RuntimeMin) || err != nil || n < 1 || n > catalog.MaxRuntimeMin {
		return "", 0, invalid("runtime_min must be a whole number of minutes from 1 to %d", catalog.MaxRuntimeMin)
	}
	return title, int(n), nil
}

// showBody is the body of POST and PATCH /api/v1/admin/shows; raw fields tell absent,
// null and wrong types apart.
type showBody struct {
	MovieID       json.RawMessage `json:"movie_id"`
	HallID        json.RawMessage `json:"hall_id"`
	StartsAt      json.RawMessage `json:"starts_at"`
	SaleOpensAt   json.RawMessage `json:"sale_opens_at"`
	SaleClosesAt  json.RawMessage `json:"sale_closes_at"`
	Prices        json.RawMessage `json:"prices"`
	PurchaseLimit json.RawMessage `json:"purchase_limit"`
	SelfRefundH   json.RawMessage `json:"self_refund_until_h"`
	WaitingRoom   json.RawMessage `json:"waiting_room"`
	AdmitPerMin   json.RawMessage `json:"admit_per_minute"`
	SingleSeat    json.RawMessage `json:"single_seat_rule"`
	TicketPrices  json.RawMessage `json:"ticket_prices"`
}

const showShape = `{"movie_id":"1","hall_id":"2","starts_at":"2030-01-01T19:30:00+08:00","sale_opens_at":"...","sale_closes_at":"...","prices":[{"zone":"standard","price_minor":4500}],"purchase_limit":4,"self_refund_until_h":24,"waiting_room":false,"admit_per_minute":600,"single_seat_rule":"warn"}`

// parseNewShow reads a create-show body: ids as strings of digits (numbers accepted),
// times RFC 3339 with any offset, prices a list of {"zone","price_minor"}, an optional
// purchase_limit, an optional waiting_room (true for a show of high expected demand) and
// admit_per_minute, and an optional single_seat_rule (off, warn, enforce). Errors:
// INVALID_REQUEST.
func parseNewShow(body []byte) (catalog.NewShow, error) {
	var in showBody
	var out catalog.NewShow
	if err := decodeObject(body, &in, showShape); err != nil {
		return out, err
	}
	var err error
	if out.MovieID, err = jsonID(in.MovieID, "movie_id"); err != nil {
		return out, err
	}
	if out.HallID, err = jsonID(in.HallID, "hall_id"); err != nil {
		return out, err
	}
	for _, f := range []struct {
		raw  json.RawMessage
		name string
		dst  *time.Time
	}{{in.StartsAt, "starts_at", &out.StartsAt}, {in.SaleOpensAt, "sale_opens_at", &out.SaleOpensAt}, {in.SaleClosesAt, "sale_closes_at", &out.SaleClosesAt}} {
		if !isSet(f.raw) {
			return out, invalid("%s is required", f.name)
		}
		if *f.dst, err = jsonTime(f.raw, f.name); err != nil {
			return out, err
		}
	}
	if !isSet(in.Prices) {
		return out, invalid("prices is required: a price for every zone of the hall")
	}
	if out.Prices, err = jsonPrices(in.Prices); err != nil {
		return out, err
	}
	if isSet(in.PurchaseLimit) {
		if out.PurchaseLimit, err = jsonLimit(in.PurchaseLimit); err != nil {
			return out, err
		}
	}
	if isSet(in.SelfRefundH) {
		if out.SelfRefundUntilH, err = jsonSelfRefund(in.SelfRefundH); err != nil {
			return out, err
		}
	}
	if isSet(in.WaitingRoom) {
		if out.WaitingRoom, err = jsonBool(in.WaitingRoom, "waiting_room"); err != nil {
			return out, err
		}
	}
	if isSet(in.AdmitPerMin) {
		if out.AdmitPerMinute, err = jsonPace(in.AdmitPerMin); err != nil {
			return out, err
		}
	}
	if isSet(in.SingleSeat) {
		if out.SingleSeatRule, err = jsonRule(in.SingleSeat); err != nil {
			return out, err
		}
	}
	if isSet(in.TicketPrices) {
		if out.TicketPrices, err = jsonTicketPrices(in.TicketPrices, false); err != nil {
			return out, err
		}
	}
	return out, nil
}

// jsonRule reads a single-seat rule: "off", "warn" or "enforce".
func jsonRule(r json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(r, &s) != nil || !catalog.ValidRule(s) {
		return "", invalid(`single_seat_rule must be "off", "warn" or "enforce"`)
	}
	return s, nil
}

// parseShowChange reads a PATCH body: any of sale_opens_at, sale_closes_at,
// purchase_limit, prices, waiting_room, admit_per_minute, single_seat_rule (null or absent leaves a field
// as it is) and self_refund_until_h (absent leaves it; null: buyers may not refund themselves). Errors: INVALID_REQUEST.
func parseShowChange(body []byte) (catalog.ShowChange, error) {
	var in showBody
	var out catalog.ShowChange
	if err := decodeObject(body, &in, `{"sale_closes_at":"2030-01-01T18:30:00Z","prices":[{"zone":"standard","price_minor":5000}]}`); err != nil {
		return out, err
	}
	if isSet(in.MovieID) || isSet(in.HallID) || isSet(in.StartsAt) {
		return out, invalid("movie_id, hall_id and starts_at cannot change; cancel the show and create another")
	}
	for _, f := range []struct {
		raw  json.RawMessage
		name string
		dst  **time.Time
	}{{in.SaleOpensAt, "sale_opens_at", &out.SaleOpensAt}, {in.SaleClosesAt, "sale_closes_at", &out.SaleClosesAt}} {
		if isSet(f.raw) {
			t, err := jsonTime(f.raw, f.name)
			if err != nil {
				return out, err
			}
			*f.dst = &t
		}
	}
	if isSet(in.PurchaseLimit) {
		n, err := jsonLimit(in.PurchaseLimit)
		if err != nil {
			return out, err
		}
		out.PurchaseLimit = &n
	}
	if len(in.SelfRefundH) > 0 { // null too: buyers may no longer refund themselves
		h, err := jsonSelfRefund(in.SelfRefundH)
		if err != nil {
			return out, err
		}
		out.SetSelfRefund, out.SelfRefundUntilH = true, h
	}
	if isSet(in.Prices) {
		p, err := jsonPrices(in.Prices)
		if err != nil {
			return out, err
		}
		out.Prices = p
	}
	if isSet(in.WaitingRoom) {
		on, err := jsonBool(in.WaitingRoom, "waiting_room")
		if err != nil {
			return out, err
		}
		out.WaitingRoom = &on
	}
	if isSet(in.AdmitPerMin) {
		n, err := jsonPace(in.AdmitPerMin)
		if err != nil {
			return out, err
		}
		out.AdmitPerMinute = &n
	}
	if isSet(in.SingleSeat) {
		rule, err := jsonRule(in.SingleSeat)
		if err != nil {
			return out, err
		}
		out.SingleSeatRule = &rule
	}
	if isSet(in.TicketPrices) {
		ps, err := jsonTicketPrices(in.TicketPrices, true)
		if err != nil {
			return out, err
		}
		out.TicketPrices = ps
	}
	return out, nil
}

// jsonBool reads true or false (not a string, not a number).
func jsonBool(r json.RawMessage, name string) (bool, error) {
	var b bool
	if json.Unmarshal(r, &b) != nil {
		return false, invalid("%s must be true or false", name)
	}
	return b, nil
}

// jsonPace reads a waiting room's pace, a whole number of buyers a minute from 1 to
// MaxAdmitPerMinute.
func jsonPace(r json.RawMessage) (int, error) {
	n, err := jsonInt(r)
	if err != nil || n < 1 || n > catalog.MaxAdmitPerMinute {
		return 0, invalid("admit_per_minute must be a whole number from 1 to %d", catalog.MaxAdmitPerMinute)
	}
	return int(n), nil
}

// jsonTime reads an RFC 3339 time string with any offset, returned in UTC.
func jsonTime(r json.RawMessage, name string) (time.Time, error) {
	var s string
	if json.Unmarshal(r, &s) != nil {
		return time.Time{}, invalid("%s must be an RFC 3339 time string", name)
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, invalid("%s must be an RFC 3339 time such as 2030-01-01T19:30:00+08:00", name)
	}
	return t.UTC(), nil
}

// jsonSelfRefund reads a self-refund cut-off: null (buyers may not refund themselves)
// or a whole number of hours before the start from 0 to MaxSelfRefundHours.
func jsonSelfRefund(r json.RawMessage) (*int, error) {
	if !isSet(r) {
		return nil, nil
	}
	n, err := jsonInt(r)
	if err != nil || n < 0 || n > catalog.MaxSelfRefundHours {
		return nil, invalid("self_refund_until_h must be null or a whole number of hours from 0 to %d", catalog.MaxSelfRefundHours)
	}
	h := int(n)
	return &h, nil
}

// jsonLimit reads a purchase limit, a whole number from 1 to MaxPurchaseLimit.
func jsonLimit(r json.RawMessage) (int, error) {
	n, err := jsonInt(r)
	if err != nil || n < 1 || n > catalog.MaxPurchaseLimit {
		return 0, invalid("purchase_limit must be a whole number from 1 to %d", catalog.MaxPurchaseLimit)
	}
	return int(n), nil
}

// jsonPrices reads [{"zone": string, "price_minor": integer}, ...].
func jsonPrices(r json.RawMessage) ([]catalog.ZonePrice, error) {
	var raw []struct {
		Zone       json.RawMessage `json:"zone"`
		PriceMinor json.RawMessage `json:"price_minor"`
	}
	if err := json.Unmarshal(r, &raw); err != nil {
		return nil, invalid(`prices must be a list like [{"zone":"standard","price_minor":4500}]`)
	}
	out := make([]catalog.ZonePrice, len(raw))
	for i, p := range raw {
		if !isSet(p.Zone) || json.Unmarshal(p.Zone, &out[i].Zone) != nil || out[i].Zone == "" {
			return nil, invalid("prices[%d].zone must be a zone code string", i)
		}
		v, err := jsonInt(p.PriceMinor)
		if !isSet(p.PriceMinor) || err != nil {
			return nil, invalid("prices[%d].price_minor must be a whole number of minor units", i)
		}
		if v < 0 {
			return nil, invalid("prices[%d].price_minor must not be negative", i)
		}
		out[i].PriceMinor = v
	}
	return out, nil
}
