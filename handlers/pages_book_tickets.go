package handlers

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// ticketCountsOf reads the booking forms' ticket counts (views.TicketCounts): a field
// tickets_<type> per type other than adult, a whole number; blank or 0 leaves it out.
// It returns nil when the form asks for none, and false for a count that is not a whole
// number from 0 to 100.
func ticketCountsOf(c *fiber.Ctx) (map[string]int, bool) {
	return ticketCountsArgs(c.Request().PostArgs())
}

// ticketCountsArgs reads the fields tickets_<type> of a form or query as ticketCountsOf
// says.
func ticketCountsArgs(args *fasthttp.Args) (map[string]int, bool) {
	var out map[string]int
	ok := true
	args.VisitAll(func(k, v []byte) {
		key := string(k)
		if !strings.HasPrefix(key, "tickets_") {
			return
		}
		val := strings.TrimSpace(string(v))
		if val == "" {
			return
		}
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 || n > 100 {
			ok = false
			return
		}
		if n > 0 {
			if out == nil {
				out = map[string]int{}
			}
			out[strings.TrimPrefix(key, "tickets_")] = n
		}
	})
	return out, ok
}

// bestTicketCounts turns the best-available form's counts into the order's ticket
// counts for qty seats: adult is the rest. It returns nil for none, and false when the
// counts exceed qty.
func bestTicketCounts(counts map[string]int, qty int) (map[string]int, bool) {
	if len(counts) == 0 {
		return nil, true
	}
	sum := 0
	out := make(map[string]int, len(counts)+1)
	for t, n := range counts {
		sum += n
		out[t] += n
	}
	if sum > qty {
		return nil, false
	}
	out["adult"] += qty - sum
	return out, true
}

// sumCounts adds up ticket counts.
func sumCounts(counts map[string]int) int {
	n := 0
	for _, v := range counts {
		n += v
	}
	return n
}

// ticketCountsIn reads ticket counts from a query or the booking flash (fields
// tickets_<type> as ticketCountsOf reads them), dropping what is not a count from 1 to
// 100; nil for none.
func ticketCountsIn(v url.Values) map[string]int {
	var out map[string]int
	for k, vals := range v {
		code, ok := strings.CutPrefix(k, "tickets_")
		if !ok || len(vals) == 0 || code == "" || len(code) > 32 {
			continue
		}
		n, err := strconv.Atoi(vals[0])
		if err != nil || n < 1 || n > 100 {
			continue
		}
		if out == nil {
			out = map[string]int{}
		}
		out[code] = n
	}
	return out
}

// queryTicketCounts reads the seat form's ticket counts from the show page's address
// (picksCountsURL); nil for none.
func queryTicketCounts(c *fiber.Ctx) map[string]int {
	v := url.Values{}
	c.Context().QueryArgs().VisitAll(func(k, val []byte) {
		if strings.HasPrefix(string(k), "tickets_") {
			v.Add(string(k), string(val))
		}
	})
	return ticketCountsIn(v)
}

// picksCountsURL is the show's page with the picks and ticket counts in its query
// (the seat form's "Show the total" without JavaScript).
func picksCountsURL(showID int64, ids []int64, counts map[string]int) string {
	u := picksURL(showID, ids)
	if len(counts) == 0 {
		return u
	}
	v := url.Values{}
	for t, n := range counts {
		v.Set("tickets_"+t, strconv.Itoa(n))
	}
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + v.Encode()
}

// withVoucher adds the voucher code typed to a show page's address ("" adds nothing).
func withVoucher(u, code string) string {
	if code == "" || len(code) > 64 {
		return u
	}
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + url.Values{"voucher": {code}}.Encode()
}
