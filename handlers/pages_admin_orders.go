package handlers

import "github.com/gofiber/fiber/v2"

// registerOrderPages registers order search, order pages and refunds under /admin/orders.
func (d *Deps) registerOrderPages(r fiber.Router) {}
