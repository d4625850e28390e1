package handlers

import "github.com/gofiber/fiber/v2"

// registerDashboardPages registers the dashboard at /admin.
func (d *Deps) registerDashboardPages(r fiber.Router) {}
