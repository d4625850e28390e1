package handlers

import (
	"errors"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/orders"
	"seatflow/services/vouchers"
	"seatflow/views"
)

// voucherReasons words each reason a code cannot be used on the booking page.
var voucherReasons = []struct {
	err error
	id  string
}{
	{vouchers.ErrUnknown, "voucher.unknown"},
	{vouchers.ErrOtherCinema, "voucher.other_cinema"},
	{vouchers.ErrInactive, "voucher.inactive"},
	{vouchers.ErrNotYetValid, "voucher.not_yet"},
	{vouchers.ErrExpired, "voucher.expired"},
	{vouchers.ErrCoversNone, "voucher.covers_none"},
	{vouchers.ErrTooFewUses, "voucher.too_few_uses"},
}

// voucherReasonID is the message id of why an order or a quote refused a voucher
// (VOUCHER_INVALID caused by one of voucherReasons), "" for any other error.
func voucherReasonID(err error) string {
	for _, r := range voucherReasons {
		if errors.Is(err, r.err) {
			return r.id
		}
	}
	return ""
}

// voucherReasonKnown reports whether id is one of voucherReasons' message ids (a
// flash cookie names one).
func voucherReasonKnown(id string) bool {
	for _, r := range voucherReasons {
		if r.id == id {
			return true
		}
	}
	return false
}

// voucherPreview is the booking forms' voucher check (htmx, GET with the form's fields:
// voucher, seat..., tickets_<type>; the best-available form's zone and quantity instead
// of seats): a fragment saying what the code saves on those seats and the total, or in
// the page's language why it cannot be used. It answers 200
// whatever the verdict, so htmx swaps it in; the order itself decides.
func (d *Deps) voucherPreview(c *fiber.Ctx) error {
	out := func(p views.VoucherPreviewProps) error { return render(c, fiber.StatusOK, views.VoucherPreview(p)) }
	showID, ok := idParam(c, "id")
	if !ok {
		return out(views.VoucherPreviewProps{Problem: tr(c, "err.no_show", nil)})
	}
	code := formVoucher(c)
	if code == "" {
		return out(views.VoucherPreviewProps{Problem: tr(c, "voucher.empty", nil)})
	}
	if currentUser(c) == nil {
		return out(views.VoucherPreviewProps{Problem: tr(c, "voucher.sign_in", nil)})
	}
	ids, problem := seatIDs(c.Context().QueryArgs().PeekMulti("seat"))
	counts, _ := previewTicketCounts(c)
	if problem == "" && len(ids) == 0 && c.Query("zone") != "" {
		// the best-available form: its quantity in its zone, typed as it asks
		return out(d.voucherBestCheck(c, showID, code, strings.TrimSpace(c.Query("zone")), c.Query("quantity"), counts))
	}
	if problem != "" || len(ids) == 0 {
		return out(views.VoucherPreviewProps{Problem: tr(c, "voucher.pick_seats", nil)})
	}
	return out(d.voucherCheck(c, showID, code, ids, counts))
}

// voucherCheck is what code saves on the seats ids of show showID typed by counts
// (tickets_<type> counts, the rest adult), or in the page's language why it cannot be
// used: the booking form's check, with htmx or on the page itself.
func (d *Deps) voucherCheck(c *fiber.Ctx, showID int64, code string, ids []int64, counts map[string]int) views.VoucherPreviewProps {
	ctx, cancel := ctxOf(c)
	defer cancel()
	q, show, err := d.quoteVoucher(ctx, showID, code, ids, counts)
	return voucherVerdict(c, code, q, show, err)
}

// voucherBestCheck is voucherCheck for the best-available form: quantity (as typed)
// seats of zone, typed by counts (the rest adult).
func (d *Deps) voucherBestCheck(c *fiber.Ctx, showID int64, code, zone, quantity string, counts map[string]int) views.VoucherPreviewProps {
	qty, err := strconv.Atoi(quantity)
	if err != nil || qty < 1 || qty > orders.MaxSeatsPerRequest {
		return views.VoucherPreviewProps{Problem: tr(c, "book.choose_quantity", nil)}
	}
	typed, fits := bestTicketCounts(counts, qty)
	if !fits {
		return views.VoucherPreviewProps{Problem: tr(c, "tickets.too_many", nil)}
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	q, show, err := d.quoteVoucherBest(ctx, showID, code, zone, qty, typed)
	return voucherVerdict(c, code, q, show, err)
}

// voucherVerdict words a quote of code for the booking forms: the saving and the total,
// or in the page's language why the code cannot be used.
func voucherVerdict(c *fiber.Ctx, code string, q *vouchers.Quote, show *services.Show, err error) views.VoucherPreviewProps {
	if err != nil {
		var se *services.Error
		if !errors.As(err, &se) || se.Code != services.CodeVoucherInvalid {
			_, se = pageError(c, err)
			return views.VoucherPreviewProps{Problem: serviceText(langOf(c), se, sentence(se.Message))}
		}
		if id := voucherReasonID(err); id != "" {
			return views.VoucherPreviewProps{Problem: tr(c, id, views.D{"Code": q0(code)})}
		}
		return views.VoucherPreviewProps{Problem: sentence(se.Message)}
	}
	return views.VoucherPreviewProps{Code: q.Code, Saving: views.Money(q.DiscountMinor, show.Currency), Total: views.Money(q.TotalMinor, show.Currency)}
}

// q0 is a code as the buyer typed it, upper-cased as codes are kept.
func q0(code string) string {
	c, _ := services.CanonicalVoucherCode(code)
	return c
}
