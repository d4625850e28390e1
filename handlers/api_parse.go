package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"seatflow/services/orders"
)

// orderBody is the create-order body; raw fields let the parser tell wrong types apart.
type orderBody struct {
	SeatIDs            json.RawMessage `json:"seat_ids"`
	Zone               json.RawMessage `json:"zone"`
	Quantity           json.RawMessage `json:"quantity"`
	Accessible         json.RawMessage `json:"accessible"`
	ExpectedTotalMinor json.RawMessage `json:"expected_total_minor"`
	Tickets            json.RawMessage `json:"tickets"`
	TicketCounts       json.RawMessage `json:"ticket_counts"`
	Voucher            json.RawMessage `json:"voucher"`
}

// parseOrderBody reads a create-order body into req: seat_ids as a list of decimal
// strings, or zone (string) + quantity (positive integer) with optional accessible
// (bool); expected_total_minor an integer; tickets an object of seat id to ticket type,
// ticket_counts an object of ticket type to a whole number (parseTickets); voucher a
// string (the code; the service judges it). Errors: INVALID_REQUEST.
func parseOrderBody(body []byte, req *orders.CreateOrderRequest) error {
	var b orderBody
	if err := unmarshalOne(body, &b, `{"seat_ids":["101"]}`); err != nil {
		return err
	}
	if isSet(b.SeatIDs) {
		ids, err := seatIDList(b.SeatIDs, "pick at least one seat", "at most %d seats per order")
		if err != nil {
			return err
		}
		req.SeatIDs = ids
	}
	if isSet(b.Zone) {
		if err := json.Unmarshal(b.Zone, &req.Zone); err != nil || req.Zone == "" {
			return invalid("zone must be a zone code string")
		}
	}
	if isSet(b.Quantity) {
		n, err := positiveInt(b.Quantity)
		if err != nil {
			return invalid("quantity must be a positive whole number")
		}
		if n > orders.MaxSeatsPerRequest {
			return invalid("quantity must be at most %d", orders.MaxSeatsPerRequest)
		}
		req.Quantity = int(n)
	}
	if isSet(b.Accessible) {
		if err := json.Unmarshal(b.Accessible, &req.Accessible); err != nil {
			return invalid("accessible must be true or false")
		}
	}
	if isSet(b.ExpectedTotalMinor) {
		v, err := jsonInt(b.ExpectedTotalMinor)
		if err != nil || v < 0 {
			return invalid("expected_total_minor must be a non-negative integer in minor units")
		}
		req.ExpectedTotalMinor = &v
	}
	if err := parseTickets(b, req); err != nil {
		return err
	}
	if isSet(b.Voucher) {
		if err := json.Unmarshal(b.Voucher, &req.Voucher); err != nil || len(req.Voucher) > 64 {
			return invalid("voucher must be a voucher code string")
		}
		req.Voucher = strings.TrimSpace(req.Voucher)
	}
	if len(req.SeatIDs) > 0 && (req.Zone != "" || isSet(b.Quantity)) {
		return invalid("send either seat_ids or zone with quantity, not both")
	}
	if len(req.SeatIDs) == 0 {
		if req.Zone == "" {
			return invalid("send seat_ids, or zone with quantity")
		}
		if !isSet(b.Quantity) {
			return invalid("quantity is missing")
		}
	}
	return nil
}

// unmarshalOne decodes body, exactly one JSON value, into v in one pass (json.Unmarshal:
// anything after the value but white space is refused, a stray "]" or "}" too). A body
// it refuses is read again by a decoder only to say why: INVALID_REQUEST naming shape
// and the problem, or that more than one JSON value was sent.
func unmarshalOne(body []byte, v any, shape string) error {
	if json.Unmarshal(body, v) == nil {
		return nil
	}
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(v); err != nil {
		return invalid("the body must be a JSON object like %s: %s", shape, jsonProblem(err))
	}
	return invalid("the body holds more than one JSON value")
}

func isSet(r json.RawMessage) bool { return len(r) > 0 && string(r) != "null" }

var jsonInteger = regexp.MustCompile(`^-?[0-9]{1,19}$`)

// jsonInt accepts a JSON number literal that is a whole number (no quotes, fraction or
// exponent) within int64.
func jsonInt(r json.RawMessage) (int64, error) {
	s := string(bytes.TrimSpace(r))
	if !jsonInteger.MatchString(s) {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseInt(s, 10, 64)
}

// positiveInt is jsonInt limited to whole numbers >= 1.
func positiveInt(r json.RawMessage) (int64, error) {
	v, err := jsonInt(r)
	if err != nil || v < 1 {
		return 0, strconv.ErrSyntax
	}
	return v, nil
}

// decodeJSON reads the body as one JSON value into v; INVALID_REQUEST says what is
// wrong with it.
func decodeJSON(c *fiber.Ctx, v any) error {
	if err := json.Unmarshal(c.Body(), v); err != nil {
		return invalid("the body must be a JSON object: %s", jsonProblem(err))
	}
	return nil
}

// jsonShowID reads a show id given as a JSON string of digits (API.md: every id is a
// JSON string); it must be positive.
func jsonShowID(r json.RawMessage) (int64, bool) {
	var s string
	if r[0] != '"' || json.Unmarshal(r, &s) != nil {
		return 0, false
	}
	return parseID(s)
}

// jsonID reads a positive id given as a string of digits (or a JSON integer).
func jsonID(r json.RawMessage, name string) (int64, error) {
	if !isSet(r) {
		return 0, invalid("%s is required", name)
	}
	var s string
	if r[0] == '"' {
		if json.Unmarshal(r, &s) != nil {
			return 0, invalid("%s must be an id string such as \"7\"", name)
		}
	} else {
		s = string(bytes.TrimSpace(r))
	}
	n, ok := parseID(s)
	if !ok {
		return 0, invalid("%s must be an id string such as \"7\"", name)
	}
	return n, nil
}

// seatIDList reads seat_ids: a list of 1..orders.MaxSeatsPerRequest decimal seat id
// strings, each once. empty is what an empty list is told to do; tooMany the message
// (with %d) of a longer one. Errors: INVALID_REQUEST.
func seatIDList(raw json.RawMessage, empty, tooMany string) ([]int64, error) {
	var ids []string
	if err := json.Unmarshal(raw, &ids); err != nil {
		return nil, invalid("seat_ids must be a list of seat id strings")
	}
	if len(ids) == 0 {
		return nil, invalid("seat_ids is empty: %s", empty)
	}
	if len(ids) > orders.MaxSeatsPerRequest {
		return nil, invalid(tooMany, orders.MaxSeatsPerRequest)
	}
	out := make([]int64, 0, len(ids))
	for _, s := range ids {
		if !isDecimal(s) {
			return nil, invalid("seat id %q is not a decimal integer", s)
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			return nil, invalid("seat id %q is out of range", s)
		}
		if slices.Contains(out, n) { // at most orders.MaxSeatsPerRequest ids
			return nil, invalid("seat %s is listed twice", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// decodeObject decodes body, one JSON object with no unknown fields, into v.
// Errors: INVALID_REQUEST.
func decodeObject(body []byte, v any, shape string) error {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return invalid("the body must be a JSON object like %s", shape)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return invalid("the body must be a JSON object like %s: %s", shape, jsonProblem(err))
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		return invalid("the body holds more than one JSON value")
	}
	return nil
}

// refuseBlankQuery refuses, with INVALID_REQUEST naming the parameter, a query parameter
// among names that is present with an empty value ("?date=") or with white space around
// its value: those parameters have a type or pattern in the OpenAPI document that such a
// value does not meet, and leaving a parameter out is how a client asks for its default.
func refuseBlankQuery(c *fiber.Ctx, names ...string) error {
	args := c.Context().QueryArgs()
	for _, n := range names {
		if !args.Has(n) {
			continue
		}
		if v := string(args.Peek(n)); v == "" || strings.TrimSpace(v) != v {
			return invalid("%s must not be empty or padded with white space: send a value, or leave the parameter out for its default", n)
		}
	}
	return nil
}

// typedOrderNoParam is the order number in the route parameter "no" as the client typed it:
// percent-escapes decoded (the router leaves them as sent), so that the full-width
// spelling of an order number reaches the search that folds it
// (services.SearchableOrderNo). A parameter that does not decode is taken as it is.
func typedOrderNoParam(c *fiber.Ctx) string {
	raw := c.Params("no")
	if s, err := url.PathUnescape(raw); err == nil {
		return s
	}
	return strings.Clone(raw)
}

// parseTickets reads an order body's tickets ({"<seat_id>":"<type>"}) and ticket_counts
// ({"<type>":N}, N a whole number >= 0) into req; the order service checks how they fit
// the seats. Errors: INVALID_REQUEST.
func parseTickets(b orderBody, req *orders.CreateOrderRequest) error {
	if isSet(b.Tickets) {
		var m map[string]string
		if err := json.Unmarshal(b.Tickets, &m); err != nil {
			return invalid("tickets must be an object of seat id strings to ticket type strings")
		}
		if len(m) > orders.MaxSeatsPerRequest {
			return invalid("tickets names more than %d seats", orders.MaxSeatsPerRequest)
		}
		req.Tickets = make(map[int64]string, len(m))
		for k, t := range m {
			n, err := strconv.ParseInt(k, 10, 64)
			if !isDecimal(k) || err != nil || n <= 0 {
				return invalid("tickets names seat %q, which is not a seat id", k)
			}
			if t == "" {
				return invalid("tickets gives seat %s no ticket type", k)
			}
			req.Tickets[n] = t
		}
	}
	if isSet(b.TicketCounts) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b.TicketCounts, &m); err != nil {
			return invalid("ticket_counts must be an object of ticket type strings to whole numbers")
		}
		req.TicketCounts = make(map[string]int, len(m))
		for t, raw := range m {
			n, err := jsonInt(raw)
			if err != nil || n < 0 || n > orders.MaxSeatsPerRequest {
				return invalid("ticket_counts of %q must be a whole number from 0 to %d", t, orders.MaxSeatsPerRequest)
			}
			req.TicketCounts[t] = int(n)
		}
	}
	return nil
}
