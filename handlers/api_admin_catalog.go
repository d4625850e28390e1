package handlers

import "github.com/gofiber/fiber/v2"

// registerAdminCatalog registers the catalog endpoints of the admin API (halls, movies,
// shows and sale control) on the staff-and-admin group.
func (d *Deps) registerAdminCatalog(admin fiber.Router) {}
