package handlers

import (
	"encoding/json"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/accounts"
)

// adminUserJSON is an account as admins read it.
type adminUserJSON struct {
	ID        string `json:"id"`
	Email     string `json:"email"`
	Name      string `json:"name"`
	Role      string `json:"role"`
	CreatedAt string `json:"created_at"`
	// CinemaIDs are the cinemas a staff member works for; empty: every cinema.
	CinemaIDs []string `json:"cinema_ids"`
}

func adminUserOut(u *accounts.UserAccount) adminUserJSON {
	out := adminUserJSON{ID: id(u.ID), Email: u.Email, Name: u.Name, Role: u.Role, CreatedAt: rfc(u.CreatedAt), CinemaIDs: []string{}}
	for _, c := range u.CinemaIDs {
		out.CinemaIDs = append(out.CinemaIDs, id(c))
	}
	return out
}

// apiAdminUsers lists accounts newest first: ?email= (a part of the address, any
// case) &role=&limit= (1..500, default 100) -> {"users":[{"id","email","name","role",
// "created_at","cinema_ids"}]} (cinema_ids: the cinemas a staff member works for, [] for
// every cinema). Errors: 400 unknown role or bad limit (empty ones included), 503.
func (d *Deps) apiAdminUsers(c *fiber.Ctx) error {
	if err := refuseBlankQuery(c, "role", "limit"); err != nil {
		return err
	}
	limit, err := queryLimit(c, accounts.DefaultUserListLimit, accounts.MaxUserListLimit)
	if err != nil {
		return err
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	users, err := d.UserAdmin.ListUsers(ctx, accounts.UserFilter{Email: c.Query("email"), Role: c.Query("role"), Limit: limit})
	if err != nil {
		return err
	}
	out := make([]adminUserJSON, len(users))
	for i, u := range users {
		out[i] = adminUserOut(u)
	}
	return c.JSON(fiber.Map{"users": out})
}

// apiAdminSetRole changes an account's role and/or the cinemas it works for: PATCH
// {"role":"staff","cinema_ids":["2"]} (either or both; cinema_ids [] is every cinema) ->
// 200 the account. Both change together or, on an error, neither; each is audited.
// Errors: 400 bad body, unknown role or a cinema id that is no id, 404 unknown account or
// cinema, 409 CONFLICT (one's own role, or the last admin), 503.
func (d *Deps) apiAdminSetRole(c *fiber.Ctx) error {
	userID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "user not found"}
	}
	var in struct {
		Role      json.RawMessage `json:"role"`
		CinemaIDs json.RawMessage `json:"cinema_ids"`
	}
	const shape = `{"role":"staff","cinema_ids":["2"]}`
	if err := decodeObject(c.Body(), &in, shape); err != nil {
		return err
	}
	if len(in.Role) == 0 && len(in.CinemaIDs) == 0 {
		return invalid("send role, cinema_ids or both, like %s", shape)
	}
	var role string
	if len(in.Role) > 0 && json.Unmarshal(in.Role, &role) != nil {
		return invalid(`role must be one of "customer", "staff", "admin"`)
	}
	var cinemaIDs []int64
	if len(in.CinemaIDs) > 0 {
		var raw []json.RawMessage
		if json.Unmarshal(in.CinemaIDs, &raw) != nil || raw == nil {
			return invalid(`cinema_ids must be a list of cinema ids such as ["2"] ([] for every cinema)`)
		}
		for _, r := range raw {
			cid, err := jsonID(r, "cinema_ids")
			if err != nil {
				return err
			}
			cinemaIDs = append(cinemaIDs, cid)
		}
	}
	ch := accounts.UserChange{CinemaIDs: cinemaIDs}
	if len(in.Role) > 0 {
		ch.Role = &role
	}
	if len(in.CinemaIDs) > 0 && ch.CinemaIDs == nil {
		ch.CinemaIDs = []int64{}
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	u, err := d.UserAdmin.Change(ctx, currentUser(c).ID, userID, ch)
	if err != nil {
		return err
	}
	return c.JSON(adminUserOut(u))
}
