package handlers

import (
	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/staff"
)

// shiftJSON is a box-office shift with its cash-up (money in minor units of currency).
type shiftJSON struct {
	ID                string      `json:"id"`
	Status            string      `json:"status"`
	Staff             userRefJSON `json:"staff"`
	Cinema            cinemaRef   `json:"cinema"`
	Currency          string      `json:"currency"`
	OpenedAt          string      `json:"opened_at"`
	ClosedAt          *string     `json:"closed_at"`
	ClosedBy          *string     `json:"closed_by"`
	Note              string      `json:"note"`
	CloseNote         string      `json:"close_note"`
	staff.CashUp                  // the float, sales and refunds by tender, and the count (its JSON fields inline)
	ExpectedCashMinor int64       `json:"expected_cash_minor"`
	CardNetMinor      int64       `json:"card_net_minor"`
	DifferenceMinor   *int64      `json:"difference_minor"`
}

func shiftOut(v *staff.ShiftView) shiftJSON {
	cu := v.CashUp
	out := shiftJSON{ID: id(v.ID), Status: "open", Staff: userRefJSON{ID: id(v.StaffID), Email: v.StaffEmail},
		Cinema: cinemaRef{ID: id(v.CinemaID), Name: v.CinemaName}, Currency: v.Currency, OpenedAt: rfc(v.OpenedAt), Note: v.Note, CloseNote: v.CloseNote,
		CashUp: cu, ExpectedCashMinor: cu.ExpectedCashMinor(), CardNetMinor: cu.CardNetMinor()}
	if v.ClosedAt != nil {
		out.Status, out.ClosedAt = "closed", optString(rfc(*v.ClosedAt))
	}
	if v.ClosedBy != nil {
		out.ClosedBy = optID(*v.ClosedBy)
	}
	if diff, ok := cu.DifferenceMinor(); ok {
		out.DifferenceMinor = &diff
	}
	return out
}

// apiAdminShifts lists shifts, newest first: GET /api/v1/admin/shifts?staff_id=&limit=
// -> {"shifts":[...]} (limited staff: their cinemas'). Errors: 400 bad staff_id or limit, 503.
func (d *Deps) apiAdminShifts(c *fiber.Ctx) error {
	if err := refuseBlankQuery(c, "staff_id", "limit"); err != nil {
		return err
	}
	var staffID int64
	if q := c.Query("staff_id"); q != "" {
		n, ok := parseID(q)
		if !ok {
			return invalid("staff_id must be a user id such as 7")
		}
		staffID = n
	}
	limit, err := queryLimit(c, 100, 500)
	if err != nil {
		return err
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	list, err := d.Shifts.List(ctx, staffID, limit)
	if err != nil {
		return err
	}
	out := make([]shiftJSON, len(list))
	for i, v := range list {
		out[i] = shiftOut(v)
	}
	return c.JSON(fiber.Map{"shifts": out})
}

// apiAdminCurrentShift is the caller's open shift: GET /api/v1/admin/shifts/current ->
// 200 the shift; 404 when none is open.
func (d *Deps) apiAdminCurrentShift(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	v, err := d.Shifts.Current(ctx, currentUser(c).ID)
	if err != nil {
		return err
	}
	if v == nil {
		return services.Errorf(services.CodeNotFound, "you have no shift open")
	}
	return c.JSON(shiftOut(v))
}

// apiAdminOpenShift opens the caller's shift: POST /api/v1/admin/shifts
// {"cinema_id","float_minor","note"} -> 201 the shift. Errors: 400, 403 (another
// cinema), 404 (unknown cinema), 409 CONFLICT (a shift of the caller is open), 503.
func (d *Deps) apiAdminOpenShift(c *fiber.Ctx) error {
	var in struct {
		CinemaID   *string `json:"cinema_id"`
		FloatMinor *int64  `json:"float_minor"`
		Note       string  `json:"note"`
	}
	if err := decodeObject(c.Body(), &in, `{"cinema_id":"1","float_minor":20000}`); err != nil {
		return err
	}
	if in.CinemaID == nil || in.FloatMinor == nil {
		return invalid("cinema_id and float_minor are required")
	}
	cinemaID, ok := parseID(*in.CinemaID)
	if !ok {
		return invalid("cinema_id must be a cinema id such as \"1\"")
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	v, err := d.Shifts.Open(ctx, currentUser(c).ID, cinemaID, *in.FloatMinor, in.Note)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(shiftOut(v))
}

// apiAdminShift is one shift with its cash-up: GET /api/v1/admin/shifts/{id}. Errors:
// 403 (another cinema's), 404, 503.
func (d *Deps) apiAdminShift(c *fiber.Ctx) error {
	shiftID, ok := idParam(c, "id")
	if !ok {
		return services.Errorf(services.CodeNotFound, "shift not found")
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	v, err := d.Shifts.Get(ctx, shiftID)
	if err != nil {
		return err
	}
	return c.JSON(shiftOut(v))
}

// apiAdminCloseShift closes a shift with the cash counted: POST
// /api/v1/admin/shifts/{id}/close {"counted_minor","note"} -> 200 the shift with its
// expected cash and difference. Errors: 400, 403, 404, 409 CONFLICT (closed already), 503.
func (d *Deps) apiAdminCloseShift(c *fiber.Ctx) error {
	shiftID, ok := idParam(c, "id")
	if !ok {
		return services.Errorf(services.CodeNotFound, "shift not found")
	}
	var in struct {
		CountedMinor *int64 `json:"counted_minor"`
		Note         string `json:"note"`
	}
	if err := decodeObject(c.Body(), &in, `{"counted_minor":41250}`); err != nil {
		return err
	}
	if in.CountedMinor == nil {
		return invalid("counted_minor is required: the cash in the drawer, in minor units")
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	v, err := d.Shifts.Close(ctx, currentUser(c).ID, shiftID, *in.CountedMinor, in.Note)
	if err != nil {
		return err
	}
	return c.JSON(shiftOut(v))
}
