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
}

func adminUserOut(u *accounts.UserAccount) adminUserJSON {
	return adminUserJSON{ID: id(u.ID), Email: u.Email, Name: u.Name, Role: u.Role, CreatedAt: rfc(u.CreatedAt)}
}

// apiAdminUsers lists accounts newest first: ?email= (a part of the address, any
// case) &role=&limit= (1..500, default 100) -> {"users":[{"id","email","name","role",
// "created_at"}]}. Errors: 400 unknown role or bad limit (empty ones included), 503.
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

// apiAdminSetRole changes an account's role: PATCH {"role":"staff"} -> 200 the account.
// Errors: 400 bad body or unknown role, 404 unknown account, 409 CONFLICT (one's own
// role, or the last admin), 503.
func (d *Deps) apiAdminSetRole(c *fiber.Ctx) error {
	userID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "user not found"}
	}
	var in struct {
		Role json.RawMessage `json:"role"`
	}
	const shape = `{"role":"staff"}`
	if err := decodeObject(c.Body(), &in, shape); err != nil {
		return err
	}
	var role string
	if len(in.Role) == 0 || json.Unmarshal(in.Role, &role) != nil {
		return invalid(`role must be one of "customer", "staff", "admin"`)
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	u, err := d.UserAdmin.SetRole(ctx, currentUser(c).ID, userID, role)
	if err != nil {
		return err
	}
	return c.JSON(adminUserOut(u))
}
