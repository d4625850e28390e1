package handlers

import "github.com/gofiber/fiber/v2"

// registerShowPages registers shows, sale control and cancellation under /admin/shows.
func (d *Deps) registerShowPages(r fiber.Router) {}
