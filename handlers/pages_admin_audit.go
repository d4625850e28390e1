package handlers

import "github.com/gofiber/fiber/v2"

// registerAuditPages registers the audit log under /admin/audit.
func (d *Deps) registerAuditPages(r fiber.Router) {}
