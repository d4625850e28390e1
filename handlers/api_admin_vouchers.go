package handlers

import (
	"context"
	"encoding/csv"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/vouchers"
)

// The API's vouchers (API.md "Vouchers (promo codes)").

// VoucherService is what the voucher endpoints and pages need of vouchers.Vouchers.
type VoucherService interface {
	Create(ctx context.Context, actorID int64, in vouchers.Input) (*services.Voucher, error)
	CreateBatch(ctx context.Context, actorID int64, in vouchers.BatchInput) ([]*services.Voucher, error)
	Update(ctx context.Context, actorID int64, code string, ch vouchers.Change) (*services.Voucher, error)
	ByCode(ctx context.Context, code string) (*services.Voucher, error)
	List(ctx context.Context, f vouchers.Filter) ([]*services.Voucher, error)
	Stats(ctx context.Context, code string) (*vouchers.Stats, error)
	Quote(ctx context.Context, code string, show *services.Show, seats []vouchers.QuoteSeat) (*vouchers.Quote, error)
}

// apiAdminCreateVoucher creates a voucher -> 201 the voucher. Errors: 400, 403 (another
// cinema), 404 (the cinema), 409 CONFLICT (the code is taken), 503.
func (d *Deps) apiAdminCreateVoucher(c *fiber.Ctx) error {
	in, err := parseVoucherCreate(c.Body())
	if err != nil {
		return err
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	v, err := d.Vouchers.Create(ctx, currentUser(c).ID, in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(voucherOut(v))
}

// apiAdminVoucher is one voucher -> 200. Errors: 403, 404, 503.
func (d *Deps) apiAdminVoucher(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	v, err := d.Vouchers.ByCode(ctx, copyParam(c, "code"))
	if err != nil {
		return err
	}
	return c.JSON(voucherOut(v))
}

// apiAdminUpdateVoucher changes a voucher (the fields given; "active": false ends it)
// -> 200 the voucher. Errors: 400 (also max_uses below its live uses), 403, 404, 503.
func (d *Deps) apiAdminUpdateVoucher(c *fiber.Ctx) error {
	ch, err := parseVoucherChange(c.Body())
	if err != nil {
		return err
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	v, err := d.Vouchers.Update(ctx, currentUser(c).ID, copyParam(c, "code"), ch)
	if err != nil {
		return err
	}
	return c.JSON(voucherOut(v))
}

// voucherFilter reads ?cinema_id= and ?batch= of a voucher list. Errors: INVALID_REQUEST.
func voucherFilter(c *fiber.Ctx) (vouchers.Filter, error) {
	var f vouchers.Filter
	if err := refuseBlankQuery(c, "cinema_id", "batch"); err != nil {
		return f, err
	}
	if v := c.Query("cinema_id"); v != "" {
		var ok bool
		if f.CinemaID, ok = parseID(v); !ok {
			return f, invalid("cinema_id must be a cinema's id")
		}
	}
	f.Batch = strings.Clone(c.Query("batch"))
	if utf8.RuneCountInString(f.Batch) > 100 {
		return f, invalid("batch must be a batch name of at most 100 characters")
	}
	return f, nil
}

// apiAdminVouchers lists vouchers newest first (?cinema_id=, ?batch=) -> 200
// {"vouchers"}. Errors: 400, 403, 503.
func (d *Deps) apiAdminVouchers(c *fiber.Ctx) error {
	f, err := voucherFilter(c)
	if err != nil {
		return err
	}
	f.Limit = vouchers.MaxBatch
	ctx, cancel := ctxOf(c)
	defer cancel()
	vs, err := d.Vouchers.List(ctx, f)
	if err != nil {
		return err
	}
	out := make([]voucherJSON, len(vs))
	for i, v := range vs {
		out[i] = voucherOut(v)
	}
	return c.JSON(fiber.Map{"vouchers": out})
}

// apiAdminCreateVoucherBatch makes count random codes PREFIX-XXXXXX with the same rules
// -> 201 {"batch","count","vouchers"}. Errors: 400, 403, 404, 409 (the batch name is
// taken), 503.
func (d *Deps) apiAdminCreateVoucherBatch(c *fiber.Ctx) error {
	in, err := parseVoucherBatch(c.Body())
	if err != nil {
		return err
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	vs, err := d.Vouchers.CreateBatch(ctx, currentUser(c).ID, in)
	if err != nil {
		return err
	}
	out := make([]voucherJSON, len(vs))
	for i, v := range vs {
		out[i] = voucherOut(v)
	}
	return c.Status(fiber.StatusCreated).JSON(fiber.Map{"batch": strings.TrimSpace(in.Name), "count": len(vs), "vouchers": out})
}

// apiAdminVoucherBatchCSV is a batch's codes as CSV (code, max_uses, uses, active, rule,
// window, cinema) -> 200 text/csv. Errors: 403, 404 (no such batch in the staff
// member's cinemas), 503.
func (d *Deps) apiAdminVoucherBatchCSV(c *fiber.Ctx) error {
	name, err := urlParam(c, "name")
	if err != nil {
		return err
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	vs, err := d.Vouchers.List(ctx, vouchers.Filter{Batch: name, Limit: vouchers.MaxBatch})
	if err != nil {
		return err
	}
	if len(vs) == 0 {
		return services.Errorf(services.CodeNotFound, "voucher batch %s not found", strconv.Quote(name))
	}
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+csvFileName(name)+`.csv"`)
	return writeVoucherCSV(c.Response().BodyWriter(), vs)
}

// writeVoucherCSV writes vs as CSV with a header row, oldest first.
func writeVoucherCSV(w interface{ Write([]byte) (int, error) }, vs []*services.Voucher) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"code", "max_uses", "uses", "active", "percent_off", "amount_off_minor", "price_minor", "valid_from", "valid_until", "cinema_id", "batch"})
	for i := len(vs) - 1; i >= 0; i-- {
		v := vs[i]
		j := voucherOut(v)
		_ = cw.Write([]string{v.Code, strconv.FormatInt(v.MaxUses, 10), strconv.FormatInt(v.Uses, 10), strconv.FormatBool(v.Active),
			optInt(v.PercentOff), optInt(v.AmountOffMinor), optInt(v.PriceMinor), deref(j.ValidFrom), deref(j.ValidUntil), j.CinemaID, v.Batch})
	}
	cw.Flush()
	return cw.Error()
}

func optInt(p *int64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatInt(*p, 10)
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// csvFileName is name with every character but letters, digits, '-' and '_' as '_'.
func csvFileName(name string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, name)
}

// urlParam is the route parameter name with its percent-escapes decoded. Errors:
// INVALID_REQUEST (a broken escape).
func urlParam(c *fiber.Ctx, name string) (string, error) {
	s, err := url.PathUnescape(c.Params(name))
	if err != nil {
		return "", invalid("%s is not a well-formed path segment", name)
	}
	return strings.Clone(s), nil
}
