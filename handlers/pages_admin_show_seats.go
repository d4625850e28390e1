package handlers

import "github.com/gofiber/fiber/v2"

// registerShowSeatPages registers a show's seat map for staff under /admin/shows/:id/seats.
func (d *Deps) registerShowSeatPages(r fiber.Router) {}
