package handlers

import "github.com/gofiber/fiber/v2"

// registerUserPages registers users and roles (the group is /admin/users).
func (d *Deps) registerUserPages(r fiber.Router) {}
