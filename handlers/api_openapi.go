package handlers

import (
	_ "embed"

	"github.com/gofiber/fiber/v2"
)

// OpenAPI is the OpenAPI 3 document of every endpoint under /api/v1 and of /healthz,
// /readyz and /metrics (handlers/openapi.json, kept by hand next to the handlers; the
// web tests check every request and answer they make against it, and that its paths
// are the app's routes). API.md at the repository root explains it with examples.
//
//go:embed openapi.json
var OpenAPI []byte

// apiOpenAPI serves OpenAPI as application/json; anyone may fetch and cache it.
func apiOpenAPI(c *fiber.Ctx) error {
	c.Set(fiber.HeaderCacheControl, "public, max-age=3600")
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	return c.Send(OpenAPI)
}
