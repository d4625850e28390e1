package handlers

import (
	"errors"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
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

// voucherPreview is the booking form's voucher check (htmx, GET with the form's fields:
// voucher, seat..., tickets_<type>): a fragment saying what the code saves on the seats
// ticked and the total, or in the page's language why it cannot be used. It answers 200
// whatever the verdict, so htmx swaps it in; the order itself decides.
func (d *Deps) voucherPreview(c *fiber.Ctx) error {
	l := langOf(c)
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
	if problem != "" || len(ids) == 0 {
		return out(views.VoucherPreviewProps{Problem: tr(c, "voucher.pick_seats", nil)})
	}
	counts, _ := previewTicketCounts(c)
	ctx, cancel := ctxOf(c)
	defer cancel()
	q, show, err := d.quoteVoucher(ctx, showID, code, ids, counts)
	if err != nil {
		var se *services.Error
		if !errors.As(err, &se) || se.Code != services.CodeVoucherInvalid {
			_, se = pageError(c, err)
			return out(views.VoucherPreviewProps{Problem: serviceText(l, se, sentence(se.Message))})
		}
		for _, r := range voucherReasons {
			if errors.Is(err, r.err) {
				return out(views.VoucherPreviewProps{Problem: tr(c, r.id, views.D{"Code": q0(code)})})
			}
		}
		return out(views.VoucherPreviewProps{Problem: sentence(se.Message)})
	}
	return out(views.VoucherPreviewProps{Code: q.Code, Saving: views.Money(q.DiscountMinor, show.Currency), Total: views.Money(q.TotalMinor, show.Currency)})
}

// q0 is a code as the buyer typed it, upper-cased as codes are kept.
func q0(code string) string {
	c, _ := services.CanonicalVoucherCode(code)
	return c
}
