package handlers

import (
	"encoding/base64"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/orders"
	"seatflow/services/seats"
	"seatflow/views"
)

// bookFlashCookie carries a refused booking from POST /shows/:id/book to the show's
// page it redirects to (post/redirect/get): the refusal's code, the seats it names,
// the wait it asks for and the buyer's picks. It lives a minute, only on that show's
// path, and is cleared by the page that reads it.
const bookFlashCookie = "sf_book"

// bookFlashMaxAge bounds how long a refusal waits to be shown.
const bookFlashMaxAge = 60 * time.Second

// bookFlash is a refused booking as the show page needs it to tell why.
type bookFlash struct {
	Code    string         // a services error code, or "input" for a form problem
	Message string         // the service's message or the form problem (plain text, escaped on output)
	Seats   []string       // seat labels the refusal names
	Retry   int            // seconds to wait (rate limits)
	Picks   []int64        // the seats the buyer had ticked
	Counts  map[string]int // the ticket counts typed with them (types other than adult)
	Section int            // the section of a large hall the buyer was in (0: none)
	// StepZone and StepRow are the step-through selection's zone and row the booking
	// came from ("": the seat map).
	StepZone, StepRow string
	// Voucher is the code typed with the booking (kept in the form); Reason the message
	// id of why it could not be used (voucherReasonID; "" for none or another refusal).
	Voucher, Reason string
}

// setBookFlash stores f for the show's page and answers 303 to it.
func setBookFlash(c *fiber.Ctx, showID int64, f bookFlash) error {
	v := url.Values{"code": {f.Code}, "msg": {f.Message}, "seat": f.Seats, "retry": {strconv.Itoa(f.Retry)}}
	for _, id := range f.Picks {
		v.Add("pick", strconv.FormatInt(id, 10))
	}
	for t, n := range f.Counts {
		v.Set("tickets_"+t, strconv.Itoa(n))
	}
	if f.Section > 0 {
		v.Set("section", strconv.Itoa(f.Section))
	}
	if f.StepZone != "" {
		v.Set("sz", f.StepZone)
		v.Set("sr", f.StepRow)
	}
	if f.Voucher != "" && len(f.Voucher) <= 64 {
		v.Set("voucher", f.Voucher)
	}
	if f.Reason != "" {
		v.Set("reason", f.Reason)
	}
	c.Cookie(&fiber.Cookie{Name: bookFlashCookie, Value: base64.RawURLEncoding.EncodeToString([]byte(v.Encode())),
		Path: views.ShowURL(showID), MaxAge: int(bookFlashMaxAge / time.Second), Expires: time.Now().Add(bookFlashMaxAge),
		HTTPOnly: true, SameSite: fiber.CookieSameSiteLaxMode})
	return c.Redirect(views.ShowURL(showID), fiber.StatusSeeOther)
}

// takeBookFlash reads and clears the refusal waiting for the show's page (false when
// there is none or it cannot be read).
func takeBookFlash(c *fiber.Ctx, showID int64) (bookFlash, bool) {
	raw := c.Cookies(bookFlashCookie)
	if raw == "" {
		return bookFlash{}, false
	}
	c.Cookie(&fiber.Cookie{Name: bookFlashCookie, Value: "", Path: views.ShowURL(showID), MaxAge: -1,
		Expires: time.Unix(0, 0), HTTPOnly: true, SameSite: fiber.CookieSameSiteLaxMode})
	if len(raw) > 3000 {
		return bookFlash{}, false
	}
	b, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil {
		return bookFlash{}, false
	}
	v, err := url.ParseQuery(string(b))
	if err != nil || v.Get("code") == "" {
		return bookFlash{}, false
	}
	f := bookFlash{Code: v.Get("code"), Message: v.Get("msg"), Seats: v["seat"]}
	f.Retry, _ = strconv.Atoi(v.Get("retry"))
	f.Picks = pickIDs(v["pick"])
	f.Counts = ticketCountsIn(v)
	f.Section, _ = sectionNumber(v.Get("section"))
	f.StepZone, f.StepRow = v.Get("sz"), v.Get("sr")
	f.Voucher = v.Get("voucher")
	if id := v.Get("reason"); voucherReasonKnown(id) {
		f.Reason = id
	}
	return f, true
}

// pickIDs parses seat ids from a query or cookie, dropping what is not one.
func pickIDs(values []string) []int64 {
	if len(values) > orders.MaxSeatsPerRequest {
		values = values[:orders.MaxSeatsPerRequest]
	}
	out := make([]int64, 0, len(values))
	for _, s := range values {
		if id, err := strconv.ParseInt(s, 10, 64); err == nil && id > 0 {
			out = append(out, id)
		}
	}
	return out
}

// queryPicks are the seats a show URL asks to keep ticked (?seat=12&seat=13), as the
// sign-in round trip carries them.
func queryPicks(c *fiber.Ctx) []int64 {
	var vals []string
	c.Context().QueryArgs().VisitAll(func(k, v []byte) {
		if string(k) == "seat" {
			vals = append(vals, string(v))
		}
	})
	return pickIDs(vals)
}

// picksURL is the show's page with the picks in its query, for coming back after
// signing in.
func picksURL(showID int64, ids []int64) string {
	if len(ids) == 0 {
		return views.ShowURL(showID)
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = "seat=" + strconv.FormatInt(id, 10)
	}
	return views.ShowURL(showID) + "?" + strings.Join(parts, "&")
}

// flashMessage words a refusal for the show page from the fresh seat map, with the
// seats it lost.
func flashMessage(l views.Lang, f bookFlash, m *seats.SeatMap, userID int64, now time.Time, loc *time.Location) (string, map[int64]bool) {
	if f.Code == "input" {
		return f.Message, nil
	}
	if f.Code == services.CodeVoucherInvalid && f.Reason != "" {
		return l.T(f.Reason, views.D{"Code": q0(f.Voucher)}), nil
	}
	return bookingMessage(l, &services.Error{Code: f.Code, Message: f.Message, Seats: f.Seats, RetryAfterS: f.Retry}, m, userID, now, loc)
}

// sectionNumber reads a section of a large hall's seat map as a page names it ("7",
// views.HallSections), 0 for the overview; false when s is empty or not a section number.
func sectionNumber(s string) (int, bool) {
	if s == "" || len(s) > 5 || !isDecimal(s) {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}
