package handlers

import (
	"strings"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"seatflow/views"
)

// page is the layout's part of a page's props, with the CSRF token its forms carry.
func page(c *fiber.Ctx, title string) views.Page {
	uri, _ := localPath(string(c.Request().RequestURI()))
	return views.Page{Title: title, User: currentUser(c), Path: c.Path(), CSRF: csrfToken(c), URI: strings.Clone(uri),
		Lang: views.LangOf(c.UserContext())}
}

// render writes a templ component as the HTML answer with status.
func render(c *fiber.Ctx, status int, comp templ.Component) error {
	c.Status(status)
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Type("html", "utf-8")
	return comp.Render(c.UserContext(), c.Response().BodyWriter())
}
