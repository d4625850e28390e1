package handlers

import (
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/services"
	"seatflow/services/accounts"
	"seatflow/views"
)

// userPageLimit is how many accounts the users page lists.
const userPageLimit = 200

// adminUsersPage lists accounts, filtered by ?email= (a part of the address) and
// ?role=; ?changed=<id> adds the notice of a role change just made.
func (d *Deps) adminUsersPage(c *fiber.Ctx) error {
	notice := ""
	if id, err := strconv.ParseInt(c.Query("changed"), 10, 64); err == nil && id > 0 {
		ctx, cancel := ctxOf(c)
		acc, err := d.UserAdmin.User(ctx, id)
		cancel()
		if err == nil {
			notice = "The role of " + acc.Email + " is now " + acc.Role + "."
			if acc.Role == services.RoleStaff && len(acc.CinemaIDs) > 0 {
				notice = acc.Email + " is staff of " + views.Plural(len(acc.CinemaIDs), "cinema", "cinemas") + "."
			}
		}
	}
	return d.renderUsers(c, fiber.StatusOK, notice, "")
}

// adminSetRole changes an account's role from the role form, then redirects (303) to
// the list (with the filter the form's address carries) and a notice. An unknown role (400), one's own role or the last admin
// (409) shows the list again with the message; an unknown account is the 404 page.
func (d *Deps) adminSetRole(c *fiber.Ctx) error {
	userID, ok := idParam(c, "id")
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, "There is no such account.")
	}
	role := utils.CopyString(c.FormValue("role"))
	ctx, cancel := ctxOf(c)
	defer cancel()
	if _, err := d.UserAdmin.SetRole(ctx, currentUser(c).ID, userID, role); err != nil {
		st, se := pageError(c, err)
		if st == fiber.StatusNotFound || st >= fiber.StatusInternalServerError {
			return renderErrorPage(c, st, se.Message)
		}
		return d.renderUsers(c, st, "", sentence(se.Message))
	}
	filter := views.UserFilterQuery(strings.TrimSpace(utils.CopyString(c.Query("email"))), utils.CopyString(c.Query("role")), "&")
	return c.Redirect("/admin/users?changed="+id(userID)+filter, fiber.StatusSeeOther)
}

// adminSetCinemas limits a staff member to the cinemas ticked on the cinemas form (the
// cinema_id values; none: every cinema), then redirects (303) to the list as
// adminSetRole does. An unknown account or cinema is the 404 page.
func (d *Deps) adminSetCinemas(c *fiber.Ctx) error {
	userID, ok := idParam(c, "id")
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, "There is no such account.")
	}
	ids := []int64{}
	for _, v := range c.Request().PostArgs().PeekMulti("cinema_id") {
		cid, ok := parseID(string(v))
		if !ok {
			return d.renderUsers(c, fiber.StatusBadRequest, "", "Pick cinemas from the list.")
		}
		ids = append(ids, cid)
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	if _, err := d.UserAdmin.Change(ctx, currentUser(c).ID, userID, accounts.UserChange{CinemaIDs: ids}); err != nil {
		st, se := pageError(c, err)
		if st == fiber.StatusNotFound || st >= fiber.StatusInternalServerError {
			return renderErrorPage(c, st, se.Message)
		}
		return d.renderUsers(c, st, "", sentence(se.Message))
	}
	filter := views.UserFilterQuery(strings.TrimSpace(utils.CopyString(c.Query("email"))), utils.CopyString(c.Query("role")), "&")
	return c.Redirect("/admin/users?changed="+id(userID)+filter, fiber.StatusSeeOther)
}

// renderUsers renders the account list (filtered by the query) with status, a notice
// and an error message.
func (d *Deps) renderUsers(c *fiber.Ctx, status int, notice, msg string) error {
	props := views.AdminUsersProps{
		Page:  page(c, "Users and roles"),
		Email: strings.TrimSpace(utils.CopyString(c.Query("email"))),
		Role:  utils.CopyString(c.Query("role")),
		Limit: userPageLimit, Zone: d.Shows.Zone(), Notice: notice, Error: msg,
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	users, err := d.UserAdmin.ListUsers(ctx, accounts.UserFilter{Email: props.Email, Role: props.Role, Limit: userPageLimit})
	if err != nil {
		st, se := pageError(c, err)
		if st >= fiber.StatusInternalServerError {
			return renderErrorPage(c, st, se.Message)
		}
		if props.Error == "" {
			props.Error = sentence(se.Message)
			status = st
		}
		props.Role = ""
		users, err = d.UserAdmin.ListUsers(ctx, accounts.UserFilter{Email: props.Email, Limit: userPageLimit})
		if err != nil {
			return errorPage(c, err)
		}
	}
	props.Users = userAccountsView(users)
	if props.Cinemas, err = d.Cinemas.Cinemas(ctx); err != nil {
		return errorPage(c, err)
	}
	return render(c, status, views.AdminUsersPage(props))
}
