package handlers

import (
	"encoding/json"
	"time"

	"seatflow/services"
	"seatflow/services/vouchers"
)

// voucherJSON is a voucher as the admin API gives it (API.md "Vouchers (promo codes)"):
// its rule, window (RFC 3339 UTC), shows (id strings) and ticket types when it has them.
type voucherJSON struct {
	Code           string   `json:"code"`
	CinemaID       string   `json:"cinema_id"`
	MaxUses        int64    `json:"max_uses"`
	Uses           int64    `json:"uses"`
	Active         bool     `json:"active"`
	PercentOff     *int64   `json:"percent_off,omitempty"`
	AmountOffMinor *int64   `json:"amount_off_minor,omitempty"`
	PriceMinor     *int64   `json:"price_minor,omitempty"`
	ValidFrom      *string  `json:"valid_from,omitempty"`
	ValidUntil     *string  `json:"valid_until,omitempty"`
	ShowIDs        []string `json:"show_ids,omitempty"`
	TicketTypes    []string `json:"ticket_types,omitempty"`
	Batch          string   `json:"batch,omitempty"`
	CreatedAt      string   `json:"created_at"`
	UpdatedAt      string   `json:"updated_at"`
}

func voucherOut(v *services.Voucher) voucherJSON {
	out := voucherJSON{Code: v.Code, CinemaID: id(v.CinemaID), MaxUses: v.MaxUses, Uses: v.Uses, Active: v.Active,
		PercentOff: v.PercentOff, AmountOffMinor: v.AmountOffMinor, PriceMinor: v.PriceMinor, TicketTypes: v.TicketTypes,
		Batch: v.Batch, CreatedAt: rfc(v.CreatedAt), UpdatedAt: rfc(v.UpdatedAt)}
	if v.ValidFrom != nil {
		out.ValidFrom = optString(rfc(*v.ValidFrom))
	}
	if v.ValidUntil != nil {
		out.ValidUntil = optString(rfc(*v.ValidUntil))
	}
	for _, s := range v.ShowIDs {
		out.ShowIDs = append(out.ShowIDs, id(s))
	}
	return out
}

// voucherBody is the body of POST /admin/vouchers, PATCH /admin/vouchers/{code} and
// POST /admin/vouchers/batch; raw fields let the parser tell absent, null and wrong
// types apart.
type voucherBody struct {
	Code           json.RawMessage `json:"code"`
	CinemaID       json.RawMessage `json:"cinema_id"`
	MaxUses        json.RawMessage `json:"max_uses"`
	PercentOff     json.RawMessage `json:"percent_off"`
	AmountOffMinor json.RawMessage `json:"amount_off_minor"`
	PriceMinor     json.RawMessage `json:"price_minor"`
	ValidFrom      json.RawMessage `json:"valid_from"`
	ValidUntil     json.RawMessage `json:"valid_until"`
	ShowIDs        json.RawMessage `json:"show_ids"`
	TicketTypes    json.RawMessage `json:"ticket_types"`
	Active         json.RawMessage `json:"active"`
	Prefix         json.RawMessage `json:"prefix"`
	Count          json.RawMessage `json:"count"`
	Batch          json.RawMessage `json:"batch"`
}

const voucherShape = `{"code":"SUMMER-15","max_uses":100,"percent_off":15,"valid_until":"2026-09-01T00:00:00Z","show_ids":["12"],"ticket_types":["adult"]}`

// parseVoucherRules reads the fields a voucher and a batch share into in. Errors:
// INVALID_REQUEST.
func parseVoucherRules(b voucherBody, in *vouchers.Input) error {
	var err error
	if isSet(b.CinemaID) {
		if in.CinemaID, err = jsonID(b.CinemaID, "cinema_id"); err != nil {
			return err
		}
	}
	if isSet(b.MaxUses) {
		if in.MaxUses, err = jsonInt(b.MaxUses); err != nil {
			return invalid("max_uses must be a whole number")
		}
	}
	if in.Rule, err = parseVoucherRule(b); err != nil {
		return err
	}
	if in.ValidFrom, err = jsonOptTime(b.ValidFrom, "valid_from"); err != nil {
		return err
	}
	if in.ValidUntil, err = jsonOptTime(b.ValidUntil, "valid_until"); err != nil {
		return err
	}
	if in.ShowIDs, err = jsonIDs(b.ShowIDs, "show_ids"); err != nil {
		return err
	}
	if isSet(b.TicketTypes) && json.Unmarshal(b.TicketTypes, &in.TicketTypes) != nil {
		return invalid("ticket_types must be a list of ticket type codes")
	}
	return nil
}

// parseVoucherRule reads percent_off, amount_off_minor and price_minor (whole numbers;
// the service checks that exactly one is given). Errors: INVALID_REQUEST.
func parseVoucherRule(b voucherBody) (vouchers.Rule, error) {
	var r vouchers.Rule
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		to   **int64
	}{{"percent_off", b.PercentOff, &r.PercentOff}, {"amount_off_minor", b.AmountOffMinor, &r.AmountOffMinor}, {"price_minor", b.PriceMinor, &r.PriceMinor}} {
		if !isSet(f.raw) {
			continue
		}
		v, err := jsonInt(f.raw)
		if err != nil {
			return r, invalid("%s must be a whole number", f.name)
		}
		*f.to = &v
	}
	return r, nil
}

// hasRule reports whether b names any of the rule's fields.
func (b voucherBody) hasRule() bool {
	return len(b.PercentOff) > 0 || len(b.AmountOffMinor) > 0 || len(b.PriceMinor) > 0
}

// jsonOptTime is jsonTime for a time that may be absent or null (nil). Errors:
// INVALID_REQUEST.
func jsonOptTime(r json.RawMessage, name string) (*time.Time, error) {
	if !isSet(r) {
		return nil, nil
	}
	t, err := jsonTime(r, name)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// jsonIDs reads a list of id strings (nil for absent or null). Errors: INVALID_REQUEST.
func jsonIDs(r json.RawMessage, name string) ([]int64, error) {
	if !isSet(r) {
		return nil, nil
	}
	var raw []json.RawMessage
	if json.Unmarshal(r, &raw) != nil {
		return nil, invalid("%s must be a list of id strings such as [\"12\"]", name)
	}
	out := make([]int64, 0, len(raw))
	for i, x := range raw {
		n, err := jsonID(x, name+"["+id(int64(i))+"]")
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// parseVoucherCreate reads a POST /admin/vouchers body. Errors: INVALID_REQUEST.
func parseVoucherCreate(body []byte) (vouchers.Input, error) {
	var b voucherBody
	var in vouchers.Input
	if err := decodeObject(body, &b, voucherShape); err != nil {
		return in, err
	}
	if len(b.Active) > 0 || len(b.Prefix) > 0 || len(b.Count) > 0 || len(b.Batch) > 0 {
		return in, invalid("a new voucher takes code, cinema_id, max_uses, its rule, valid_from, valid_until, show_ids and ticket_types")
	}
	if !isSet(b.Code) || json.Unmarshal(b.Code, &in.Code) != nil {
		return in, invalid("code must be a string of 4 to 32 characters of A-Z, 0-9 and -")
	}
	if !isSet(b.MaxUses) {
		return in, invalid("max_uses is required")
	}
	return in, parseVoucherRules(b, &in)
}

// parseVoucherBatch reads a POST /admin/vouchers/batch body. Errors: INVALID_REQUEST.
func parseVoucherBatch(body []byte) (vouchers.BatchInput, error) {
	var b voucherBody
	var in vouchers.BatchInput
	if err := decodeObject(body, &b, `{"prefix":"XMAS","count":200,"batch":"Christmas flyers","amount_off_minor":500}`); err != nil {
		return in, err
	}
	if len(b.Code) > 0 || len(b.Active) > 0 {
		return in, invalid("a batch draws its codes: send prefix, count and batch instead of code")
	}
	if !isSet(b.Prefix) || json.Unmarshal(b.Prefix, &in.Prefix) != nil {
		return in, invalid("prefix must be a string")
	}
	if !isSet(b.Batch) || json.Unmarshal(b.Batch, &in.Name) != nil {
		return in, invalid("batch must be a string naming the batch")
	}
	n, err := jsonInt(b.Count)
	if !isSet(b.Count) || err != nil {
		return in, invalid("count must be a whole number from 1 to %d", vouchers.MaxBatch)
	}
	in.Count = int(min(max(n, 0), vouchers.MaxBatch+1))
	return in, parseVoucherRules(b, &in.Input)
}

// parseVoucherChange reads a PATCH /admin/vouchers/{code} body: the fields given
// replace the voucher's (null clears valid_from, valid_until, show_ids, ticket_types).
// Errors: INVALID_REQUEST.
func parseVoucherChange(body []byte) (vouchers.Change, error) {
	var b voucherBody
	var ch vouchers.Change
	if err := decodeObject(body, &b, `{"active":false}`); err != nil {
		return ch, err
	}
	if len(b.Code) > 0 || len(b.CinemaID) > 0 || len(b.Prefix) > 0 || len(b.Count) > 0 || len(b.Batch) > 0 {
		return ch, invalid("a voucher's code, cinema and batch cannot change")
	}
	if len(b.MaxUses) > 0 {
		v, err := jsonInt(b.MaxUses)
		if err != nil {
			return ch, invalid("max_uses must be a whole number")
		}
		ch.MaxUses = &v
	}
	if b.hasRule() {
		r, err := parseVoucherRule(b)
		if err != nil {
			return ch, err
		}
		ch.Rule = &r
	}
	var err error
	if ch.SetValidFrom = len(b.ValidFrom) > 0; ch.SetValidFrom {
		if ch.ValidFrom, err = jsonOptTime(b.ValidFrom, "valid_from"); err != nil {
			return ch, err
		}
	}
	if ch.SetValidUntil = len(b.ValidUntil) > 0; ch.SetValidUntil {
		if ch.ValidUntil, err = jsonOptTime(b.ValidUntil, "valid_until"); err != nil {
			return ch, err
		}
	}
	if len(b.ShowIDs) > 0 {
		ids, err := jsonIDs(b.ShowIDs, "show_ids")
		if err != nil {
			return ch, err
		}
		ch.ShowIDs = &ids
	}
	if len(b.TicketTypes) > 0 {
		var ts []string
		if isSet(b.TicketTypes) && json.Unmarshal(b.TicketTypes, &ts) != nil {
			return ch, invalid("ticket_types must be a list of ticket type codes")
		}
		ch.TicketTypes = &ts
	}
	if len(b.Active) > 0 {
		var a bool
		if json.Unmarshal(b.Active, &a) != nil || !isSet(b.Active) {
			return ch, invalid("active must be true or false")
		}
		ch.Active = &a
	}
	return ch, nil
}
