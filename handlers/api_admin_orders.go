package handlers

import "github.com/gofiber/fiber/v2"

// registerAdminOrders registers the order endpoints of the admin API (search, refund,
// cancel a show) on the staff-and-admin group.
func (d *Deps) registerAdminOrders(admin fiber.Router) {}
