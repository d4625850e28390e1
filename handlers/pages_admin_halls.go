package handlers

import "github.com/gofiber/fiber/v2"

// registerHallPages registers halls and their layouts under /admin/halls.
func (d *Deps) registerHallPages(r fiber.Router) {}
